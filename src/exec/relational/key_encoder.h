// Row keys as bytes: rows whose keys are equal (a null equal to a null, -0.0 to 0.0, every NaN
// to every NaN) get equal bytes, so one hash table groups or joins keys of any types and number.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ember/column.h"

namespace ember {

/// The encoded keys of one batch: row i is bytes[offsets[i], offsets[i + 1]).
struct EncodedKeys {
  std::string bytes;
  std::vector<int64_t> offsets;   ///< rows + 1 entries
  std::vector<uint8_t> any_null;  ///< per row: 1 when one of its keys is null

  int64_t rows() const { return static_cast<int64_t>(offsets.size()) - 1; }
  std::string_view row(int64_t i) const {
    return std::string_view(
        bytes.data() + offsets[static_cast<size_t>(i)],
        static_cast<size_t>(offsets[static_cast<size_t>(i) + 1] - offsets[static_cast<size_t>(i)]));
  }
};

/// Encodes `keys` (equal lengths, of any types; none at all gives `rows` empty keys) into `out`.
void encode_keys(const std::vector<Column>& keys, int64_t rows, EncodedKeys& out);

/// The key columns of `types` back from encoded rows, in the order given.
std::vector<Column> decode_keys(const std::vector<std::string_view>& rows,
                                const std::vector<DataType>& types);

/// A hash of an encoded key, spread over all 64 bits (the high bits pick a hash partition).
uint64_t hash_key(std::string_view key);
/// A hash of one int64 key (the fast path of a single non-null int64 key).
uint64_t hash_int(int64_t key);

}  // namespace ember
