// Row keys as bytes: rows whose keys are equal (a null equal to a null, -0.0 to 0.0, every NaN
// to every NaN) get equal bytes, so one hash table groups or joins keys of any types and number.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/column.h"

namespace ember {

/// The encoded keys of one batch. With `width` > 0 (every key of a fixed-width type) row i is
/// bytes[i * width, (i + 1) * width) and `offsets` is unused; otherwise row i is
/// bytes[offsets[i], offsets[i + 1]).
struct EncodedKeys {
  std::string bytes;
  std::vector<int64_t> offsets;   ///< rows + 1 entries when width == 0
  std::vector<uint8_t> any_null;  ///< per row: 1 when one of its keys is null
  int64_t width = 0;              ///< bytes per row when all rows have the same size, else 0
  int64_t num_rows = 0;

  int64_t rows() const { return num_rows; }
  std::string_view row(int64_t i) const {
    if (width > 0) return std::string_view(bytes.data() + i * width, static_cast<size_t>(width));
    return std::string_view(
        bytes.data() + offsets[static_cast<size_t>(i)],
        static_cast<size_t>(offsets[static_cast<size_t>(i) + 1] - offsets[static_cast<size_t>(i)]));
  }
};

/// How encode_keys lays rows out. Both give every row the same bytes; Fixed (chosen by Auto
/// when every key column has a fixed-width type) writes them column by column at a constant
/// stride, without per-cell dispatch or offsets. Variable is the general path.
enum class KeyLayout { Auto, Variable };

/// Encodes `keys` (equal lengths, of any types; none at all gives `rows` empty keys) into `out`.
void encode_keys(const std::vector<Column>& keys, int64_t rows, EncodedKeys& out,
                 KeyLayout layout = KeyLayout::Auto);
/// The bytes of one encoded row when every type in `types` has a fixed width (a null cell is
/// as wide as a valid one), else 0 (also for no types at all).
int64_t fixed_key_width(const std::vector<DataType>& types);

/// The key columns of `types` back from encoded rows, in the order given.
std::vector<Column> decode_keys(const std::vector<std::string_view>& rows,
                                const std::vector<DataType>& types);

/// splitmix64's finalizer: every input bit reaches every output bit.
inline uint64_t mix_bits(uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

/// A hash of an encoded key, spread over all 64 bits (the high bits pick a hash partition).
/// Inline: it runs once per row of every group-by and join, mostly on short fixed-size keys.
inline uint64_t hash_key(std::string_view key) {
  // Short keys (one to three numbers, a short string) are most keys: a few words mixed cost
  // less than std::hash's byte loop. Fixed-size loads (overlapping when the key is shorter)
  // instead of a variable-length copy; the length is mixed in, so keys of different lengths
  // that load alike still differ.
  const size_t n = key.size();
  const char* p = key.data();
  const uint64_t len = n * 0x9e3779b97f4a7c15ULL;
  uint64_t a = 0, b = 0;
  if (n > 32) return mix_bits(std::hash<std::string_view>()(key) ^ len);
  if (n > 16) {  // first 16 bytes and last 16 bytes
    uint64_t c, d;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    std::memcpy(&c, p + n - 16, 8);
    std::memcpy(&d, p + n - 8, 8);
    return mix_bits(mix_bits(a ^ len) ^ b ^ mix_bits(c ^ mix_bits(d)));
  }
  if (n >= 8) {
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + n - 8, 8);
  } else if (n >= 4) {
    uint32_t x, y;
    std::memcpy(&x, p, 4);
    std::memcpy(&y, p + n - 4, 4);
    a = (uint64_t{x} << 32) | y;
  } else if (n > 0) {
    a = (uint64_t{static_cast<uint8_t>(p[0])} << 16) |
        (uint64_t{static_cast<uint8_t>(p[n / 2])} << 8) | static_cast<uint8_t>(p[n - 1]);
  }
  return mix_bits(a ^ mix_bits(b ^ len));
}
/// A hash of one int64 key (the fast path of a single non-null int64 key); a bijection.
inline uint64_t hash_int(int64_t key) { return mix_bits(static_cast<uint64_t>(key)); }

/// Whether two encoded keys are the same bytes: word compares for short keys, which a call to
/// memcmp costs more than.
inline bool same_key(std::string_view x, std::string_view y) {
  const size_t n = x.size();
  if (n != y.size()) return false;
  const char* p = x.data();
  const char* q = y.data();
  if (n < 8) {  // two overlapping 4-byte words, or bytes below 4
    if (n < 4) {
      for (size_t i = 0; i < n; ++i) {
        if (p[i] != q[i]) return false;
      }
      return true;
    }
    uint32_t a, b, c, d;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, q, 4);
    std::memcpy(&c, p + n - 4, 4);
    std::memcpy(&d, q + n - 4, 4);
    return ((a ^ b) | (c ^ d)) == 0;
  }
  if (n > 32) return x == y;
  uint64_t diff = 0;
  for (size_t i = 0; i + 8 <= n; i += 8) {
    uint64_t u, v;
    std::memcpy(&u, p + i, 8);
    std::memcpy(&v, q + i, 8);
    diff |= u ^ v;
  }
  uint64_t u, v;  // the last 8 bytes (overlapping the words above when n is not a multiple)
  std::memcpy(&u, p + n - 8, 8);
  std::memcpy(&v, q + n - 8, 8);
  return (diff | (u ^ v)) == 0;
}

}  // namespace ember
