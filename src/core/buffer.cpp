// Buffer: 64-byte aligned heap memory (zero-filled or not), or borrowed memory kept alive by an
// owner. Heap blocks come from and go back to the BufferCache.
#include <cstring>
#include <new>
#include <string>

#include "core/buffer_cache.h"
#include "ember/column.h"

namespace ember {

namespace {

// The 64-byte aligned extent of a `size`-byte buffer (never zero): word-wise kernels may touch
// the padding, and data() stays non-null even for empty columns.
size_t padded_size(size_t size) {
  const size_t a = BufferCache::kAlignment;
  return size == 0 ? a : (size + a - 1) / a * a;
}

}  // namespace

std::shared_ptr<Buffer> Buffer::allocate(int64_t size) {
  auto b = allocate_uninitialized(size);
  std::memset(b->data_, 0, padded_size(static_cast<size_t>(size)));
  return b;
}

std::shared_ptr<Buffer> Buffer::allocate_uninitialized(int64_t size) {
  if (size < 0) throw InvalidArgument("buffer size must be >= 0, got " + std::to_string(size));
  const size_t bytes = static_cast<size_t>(size);
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

std::shared_ptr<Buffer> Buffer::wrap(const void* data, int64_t size, std::shared_ptr<void> owner) {
  if (size < 0) throw InvalidArgument("buffer size must be >= 0, got " + std::to_string(size));
  std::shared_ptr<Buffer> b(new Buffer());
  // The buffer never writes through a wrapped pointer; mutable_data() is for builders only.
  b->data_ = const_cast<uint8_t*>(static_cast<const uint8_t*>(data));
  b->size_ = size;
  b->owner_ = std::move(owner);
  return b;
}

Buffer::~Buffer() {
  if (owns_) BufferCache::instance().release(data_, static_cast<size_t>(size_));
}

}  // namespace ember
