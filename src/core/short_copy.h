// Copying one short value (a text cell, a key): most are a few bytes, for which a call to memcpy
// costs more than the byte moves.
#pragma once

#include <cstddef>
#include <cstring>

namespace ember {

inline void copy_short(char* to, const char* from, size_t n) {
  if (n > 16) {
    std::memcpy(to, from, n);
    return;
  }
  for (size_t i = 0; i < n; ++i) to[i] = from[i];
}

}  // namespace ember
