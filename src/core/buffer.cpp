// Buffer: 64-byte aligned, zero-filled heap memory, or borrowed memory kept alive by an owner.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "ember/column.h"

namespace ember {

namespace {
constexpr int64_t kAlignment = 64;
}  // namespace

std::shared_ptr<Buffer> Buffer::allocate(int64_t size) {
  if (size < 0) throw InvalidArgument("buffer size must be >= 0, got " + std::to_string(size));
  // Rounding up to whole cache lines (and never zero) lets word-wise kernels touch the padding
  // and keeps data() non-null even for empty columns.
  int64_t padded = ((size + kAlignment - 1) / kAlignment) * kAlignment;
  if (padded == 0) padded = kAlignment;
  void* p = std::aligned_alloc(kAlignment, static_cast<size_t>(padded));
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, static_cast<size_t>(padded));
  std::shared_ptr<Buffer> b(new Buffer());
  b->data_ = static_cast<uint8_t*>(p);
  b->size_ = size;
  b->owns_ = true;
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
  if (owns_) std::free(data_);
}

}  // namespace ember
