// Choosing the columns and types of a JSON-lines scan from sampled objects.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ember/types.h"
#include "io/line_reader.h"

namespace ember {

/// Collects keys in first-seen order and the kinds of value each holds. A key's type: int64
/// when every non-null value is an integer, float64 when numbers mix integers and fractions,
/// bool when all are booleans, otherwise (strings, nested objects/arrays kept as raw JSON text,
/// mixed kinds, or null in every sampled row) utf8.
class JsonlTypeInference {
 public:
  /// The object parsed from the current line of `lines` (which error messages point at).
  /// Throws ParseError for a key that appears twice in it.
  void observe(simdjson::dom::object object, const LineReader& lines);
  Schema schema() const;

 private:
  enum Kind : uint8_t { kInt = 1, kFloat = 2, kBool = 4, kText = 8 };
  struct Key {
    std::string name;
    uint8_t kinds = 0;
    int64_t last_object = -1;  ///< the latest object (by count) that held the key
  };
  std::vector<Key> keys_;
  int64_t objects_ = 0;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace ember
