// Choosing the columns and types of a JSON-lines scan from sampled objects.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <simdjson.h>

#include "ember/types.h"

namespace ember {

/// Collects keys in first-seen order and the kinds of value each holds. A key's type: int64
/// when every non-null value is an integer, float64 when numbers mix integers and fractions,
/// bool when all are booleans, otherwise (strings, nested objects/arrays kept as raw JSON text,
/// mixed kinds, or null in every sampled row) utf8.
class JsonlTypeInference {
 public:
  void observe(simdjson::dom::object object);
  Schema schema() const;

 private:
  enum Kind : uint8_t { kInt = 1, kFloat = 2, kBool = 4, kText = 8 };
  struct Key {
    std::string name;
    uint8_t kinds = 0;
  };
  std::vector<Key> keys_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace ember
