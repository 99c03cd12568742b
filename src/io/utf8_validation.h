// UTF-8 validation with a fast path for ASCII text.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ember {

/// True when [data, data+size) is valid UTF-8. Pure ASCII (the common case) is checked eight
/// bytes at a time; anything else goes to simdjson's validator.
inline bool is_valid_utf8(const char* data, size_t size) {
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word;
    std::memcpy(&word, data + i, 8);
    if (word & 0x8080808080808080ull) return simdjson::validate_utf8(data + i, size - i);
  }
  for (; i < size; ++i) {
    if (static_cast<unsigned char>(data[i]) & 0x80)
      return simdjson::validate_utf8(data + i, size - i);
  }
  return true;
}

}  // namespace ember
