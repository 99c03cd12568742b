// The bytes of one message between ranks, in pooled memory (region_pool.h) and not zero-filled:
// a batch is copied in right away, and fresh or zeroed pages would cost about as much again.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

#include "dist/region_pool.h"

namespace ember::dist {

class MessageBuffer {
 public:
  MessageBuffer() = default;
  /// `size` bytes, uninitialised.
  explicit MessageBuffer(size_t size) : block_(take_region(size)), size_(size) {}
  /// A copy of `bytes` (a control message).
  explicit MessageBuffer(std::string_view bytes) : MessageBuffer(bytes.size()) {
    if (!bytes.empty()) std::memcpy(data(), bytes.data(), bytes.size());
  }
  char* data() { return block_ ? reinterpret_cast<char*>(block_->data()) : nullptr; }
  const char* data() const { return block_ ? reinterpret_cast<char*>(block_->data()) : nullptr; }
  size_t size() const { return size_; }
  std::string_view view() const { return {data(), size_}; }

 private:
  std::shared_ptr<process::SharedMapping> block_;
  size_t size_ = 0;
};

}  // namespace ember::dist
