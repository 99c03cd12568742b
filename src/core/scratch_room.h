// Uninitialised room that grows and is kept: for a thread that decodes one thing after another
// (pages, column chunks), so that each does not take fresh memory and fault its pages in.
#pragma once

#include <cstddef>
#include <memory>

namespace ember {

template <class T>
class ScratchRoom {
 public:
  /// Room for `n` elements, uninitialised; what the last call returned is invalid after it.
  T* room(size_t n) {
    if (n > capacity_) {
      data_ = std::make_unique_for_overwrite<T[]>(n);
      capacity_ = n;
    }
    return data_.get();
  }
  /// Gives the room back if it holds more than `keep` elements (an unusually large one's).
  void trim(size_t keep) {
    if (capacity_ <= keep) return;
    data_.reset();
    capacity_ = 0;
  }

 private:
  std::unique_ptr<T[]> data_;
  size_t capacity_ = 0;
};

}  // namespace ember
