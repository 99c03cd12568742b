// Reading FlatBuffers out of file bytes safely: structs copied byte-wise, tables from aligned
// copies.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace ember::arrow_ipc {

/// A copy of a FlatBuffers struct read byte-wise: in a corrupt file a vector of structs may sit
/// at an offset that is not a multiple of the struct's alignment.
template <class T>
T unaligned(const T* p) {
  T out;
  std::memcpy(static_cast<void*>(&out), p, sizeof(T));
  return out;
}

/// FlatBuffers are verified relative to their first byte, but read through typed pointers: a
/// buffer at an odd place in the file is copied to 8-byte aligned memory first.
class AlignedCopy {
 public:
  AlignedCopy(const char* p, size_t n) : words_((n + 7) / 8) {
    if (n) std::memcpy(words_.data(), p, n);
  }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words_.data()); }

 private:
  std::vector<uint64_t> words_;
};

}  // namespace ember::arrow_ipc
