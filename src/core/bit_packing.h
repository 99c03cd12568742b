// Converting between Arrow bitmaps and one byte per bit (0 or 1), the form that vectorised
// loops compute booleans in.
#pragma once

#include <cstdint>

namespace ember::bitmap {

/// Bits [start, start + n) of an Arrow bitmap as 0/1 bytes.
void unpack(const uint8_t* bits, int64_t start, uint8_t* out, int64_t n);
/// Packs 0/1 bytes into bitmap bytes (bit i of the result is byte i); `out` gets
/// ceil(n / 8) bytes, bits past n are 0. Returns the number of ones. Uses AVX-512BW where the
/// CPU has it (picked at run time).
int64_t pack(const uint8_t* bytes, uint8_t* out, int64_t n);

}  // namespace ember::bitmap
