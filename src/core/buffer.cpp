// Buffer: 64-byte aligned heap memory (zero-filled or not), or borrowed memory kept alive by an
// owner. Heap blocks come from and go back to the BufferCache, unless the thread has a
// ScopedBufferSource installed, which then supplies the large ones.
#include <cstring>
#include <new>
#include <string>

#include "core/buffer_access.h"
#include "core/buffer_cache.h"
#include "core/buffer_source.h"
#include "ember/column.h"

namespace ember {

namespace {

size_t padded_size(size_t size) { return detail::BufferAccess::padded_size(size); }

// The calling thread's ScopedBufferSource, if any (see buffer_source.h).
thread_local BufferSource* t_source = nullptr;
thread_local int64_t t_source_min_bytes = 0;

}  // namespace

ScopedBufferSource::ScopedBufferSource(BufferSource* source, int64_t min_bytes)
    : previous_source_(t_source), previous_min_bytes_(t_source_min_bytes) {
  t_source = source;
  t_source_min_bytes = min_bytes;
}

ScopedBufferSource::~ScopedBufferSource() {
  t_source = previous_source_;
  t_source_min_bytes = previous_min_bytes_;
}

std::shared_ptr<Buffer> Buffer::allocate(int64_t size) {
  auto b = detail::BufferAccess::allocate_uninitialized(size);
  std::memset(b->data_, 0, padded_size(static_cast<size_t>(size)));
  return b;
}

std::shared_ptr<Buffer> Buffer::copy_of(const void* data, int64_t size) {
  auto b = detail::BufferAccess::allocate_uninitialized(size);
  if (size > 0) std::memcpy(b->data_, data, static_cast<size_t>(size));
  return b;
}

std::shared_ptr<Buffer> detail::BufferAccess::allocate_uninitialized(int64_t size) {
  if (size < 0) throw InvalidArgument("buffer size must be >= 0, got " + std::to_string(size));
  const size_t bytes = static_cast<size_t>(size);
  if (t_source != nullptr && size >= t_source_min_bytes) {
    if (std::shared_ptr<Buffer> b = t_source->take(size)) {
      std::memset(detail::BufferAccess::mutable_data(*b) + bytes, 0, padded_size(bytes) - bytes);
      return b;
    }
  }
  void* p = BufferCache::instance().acquire(bytes);
  std::shared_ptr<Buffer> b;
  try {
    b.reset(new Buffer());
  } catch (...) {
    BufferCache::instance().release(p, bytes);
    throw;
  }
  b->data_ = static_cast<uint8_t*>(p);
  b->size_ = size;
  b->owns_ = true;
  // Only the padding is cleared: word-wise kernels read it and must see zeros there.
  std::memset(b->data_ + bytes, 0, padded_size(bytes) - bytes);
  return b;
}

// Never zero, so that data() stays non-null even for empty columns.
size_t detail::BufferAccess::padded_size(size_t size) {
  const size_t a = BufferCache::kAlignment;
  return size == 0 ? a : (size + a - 1) / a * a;
}

std::shared_ptr<Buffer> detail::BufferAccess::wrap(const void* data, int64_t size,
                                                   std::shared_ptr<void> owner) {
  if (size < 0) throw InvalidArgument("buffer size must be >= 0, got " + std::to_string(size));
  std::shared_ptr<Buffer> b(new Buffer());
  // The buffer never writes through a wrapped pointer; only builders write, and only into
  // buffers they allocated.
  b->data_ = const_cast<uint8_t*>(static_cast<const uint8_t*>(data));
  b->size_ = size;
  b->owner_ = std::move(owner);
  return b;
}

Buffer::~Buffer() {
  if (owns_) BufferCache::instance().release(data_, static_cast<size_t>(size_));
}

}  // namespace ember
