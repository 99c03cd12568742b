// Choosing the columns and types of a JSON-lines scan from sampled objects.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "ember/types.h"
#include "io/line_reader.h"

namespace ember {

/// Collects keys in first-seen order and the kinds of value each holds. A key's type: int64
/// when every non-null value is an integer, float64 when numbers mix integers and fractions,
/// bool when all are booleans, list(T) when all are arrays whose items have one kind (T inferred
/// the same way from the items; utf8 when no item was seen), a struct when all are objects
/// whose keys agree (the same keys in the same order in every sampled object, each key's type
/// inferred the same way), otherwise (arrays of mixed items kept as raw JSON text, strings,
/// objects whose keys differ kept as raw JSON text, mixed kinds, or null in every sampled row)
/// utf8. Arrays and objects nest this way four levels deep; deeper ones are JSON text.
///
/// Integers beyond int64 (up to 2^64 - 1; simdjson rejects larger ones as malformed) are never
/// rounded to float64 in silence: a key whose sampled numbers are all integers, one of them
/// beyond int64, is a ParseError at that key. With a fraction among its numbers, it is float64.
class JsonlTypeInference {
 public:
  /// The object parsed from the current line of `lines` (which error messages point at).
  /// Throws ParseError for a key that appears twice in it.
  void observe(simdjson::dom::object object, const LineReader& lines);
  /// Throws the ParseError of a key of integers with one beyond int64.
  Schema schema() const;

 private:
  enum Kind : uint8_t {
    kInt = 1,
    kFloat = 2,
    kBool = 4,
    kText = 8,
    kBigInt = 16,
    kArray = 32,
    kObject = 64
  };
  /// The kinds of a set of values: a key's array items (and their arrays' items, and so on),
  /// or the values of one field of a key's objects. When they include objects, `fields` holds
  /// the first object's keys in order with the kinds of each, and `fields_agree` whether
  /// every later object had the same keys.
  struct ItemKinds {
    uint8_t kinds = 0;
    std::unique_ptr<ItemKinds> items;
    std::vector<std::pair<std::string, std::unique_ptr<ItemKinds>>> fields;
    bool objects_seen = false;
    bool fields_agree = true;
  };
  static void observe_items(simdjson::dom::array array, ItemKinds& into, int depth);
  static void observe_item(simdjson::dom::element item, ItemKinds& into, int depth);
  static void observe_object(simdjson::dom::object object, ItemKinds& into, int depth);
  static DataType type_of_kinds(uint8_t kinds, const ItemKinds* items, const ItemKinds* object);
  /// True when the items have one kind (integers and fractions count as one) at every level.
  static bool consistent(const ItemKinds& items);
  /// True when the objects' keys agree and each field's values are consistent.
  static bool object_consistent(const ItemKinds& object);
  struct Key {
    std::string name;
    uint8_t kinds = 0;
    std::unique_ptr<ItemKinds> items;        ///< when the key holds arrays
    std::unique_ptr<ItemKinds> object;       ///< when the key holds objects: their fields
    int64_t last_object = -1;                ///< the latest object (by count) that held the key
    std::optional<ParseError> beyond_int64;  ///< at the first integer beyond int64
  };
  std::vector<Key> keys_;
  int64_t objects_ = 0;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace ember
