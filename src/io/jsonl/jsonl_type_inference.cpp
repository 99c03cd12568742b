// JSON-lines schema inference; see jsonl_type_inference.h.
#include "io/jsonl/jsonl_type_inference.h"

#include "io/jsonl/jsonl_object.h"

namespace ember {
namespace {

ParseError beyond_int64_error(const LineReader& lines, std::string_view key,
                              simdjson::dom::element value) {
  return ParseError::at(
      lines.path(), lines.line_number(), jsonl_key_column(lines.line(), key),
      "key '" + std::string(key) + "' holds " + std::to_string(value.get_uint64().value_unsafe()) +
          ", which does not fit int64, and the key's sampled numbers are all integers; ember "
          "does not round them to float64 unasked: write the values as strings to keep every "
          "digit, or with a fraction (e.g. 1.0) to read them as float64");
}

}  // namespace

void JsonlTypeInference::observe(simdjson::dom::object object, const LineReader& lines) {
  ++objects_;
  for (auto field : object) {
    const std::string_view key = field.key;
    auto it = index_.find(std::string(key));
    if (it == index_.end()) {
      it = index_.emplace(std::string(key), keys_.size()).first;
      keys_.emplace_back().name = std::string(key);
    }
    Key& k = keys_[it->second];
    if (k.last_object == objects_) fail_repeated_key(lines, key);
    k.last_object = objects_;
    switch (field.value.type()) {
      case simdjson::dom::element_type::INT64:
        k.kinds |= kInt;
        break;
      case simdjson::dom::element_type::UINT64:  // above INT64_MAX
        k.kinds |= kBigInt;
        if (!k.beyond_int64) k.beyond_int64 = beyond_int64_error(lines, key, field.value);
        break;
      case simdjson::dom::element_type::DOUBLE:
        k.kinds |= kFloat;
        break;
      case simdjson::dom::element_type::BOOL:
        k.kinds |= kBool;
        break;
      case simdjson::dom::element_type::NULL_VALUE:
        break;
      case simdjson::dom::element_type::ARRAY:
        k.kinds |= kArray;
        if (!k.items) k.items = std::make_unique<ItemKinds>();
        observe_items(field.value.get_array().value_unsafe(), *k.items, 1);
        break;
      case simdjson::dom::element_type::OBJECT:
        k.kinds |= kObject;
        if (!k.object) k.object = std::make_unique<ItemKinds>();
        observe_object(field.value.get_object().value_unsafe(), *k.object, 1);
        break;
      default:  // strings
        k.kinds |= kText;
    }
  }
}

void JsonlTypeInference::observe_items(simdjson::dom::array array, ItemKinds& into, int depth) {
  for (simdjson::dom::element item : array) observe_item(item, into, depth);
}

void JsonlTypeInference::observe_item(simdjson::dom::element item, ItemKinds& into, int depth) {
  switch (item.type()) {
    case simdjson::dom::element_type::INT64:
      into.kinds |= kInt;
      break;
    case simdjson::dom::element_type::DOUBLE:
      into.kinds |= kFloat;
      break;
    case simdjson::dom::element_type::BOOL:
      into.kinds |= kBool;
      break;
    case simdjson::dom::element_type::NULL_VALUE:
      break;
    case simdjson::dom::element_type::ARRAY:
      // Arrays and objects nest a few levels deep; deeper ones stay JSON text.
      if (depth >= 4) {
        into.kinds |= kText;
        break;
      }
      into.kinds |= kArray;
      if (!into.items) into.items = std::make_unique<ItemKinds>();
      observe_items(item.get_array().value_unsafe(), *into.items, depth + 1);
      break;
    case simdjson::dom::element_type::OBJECT:
      if (depth >= 4) {
        into.kinds |= kText;
        break;
      }
      into.kinds |= kObject;
      observe_object(item.get_object().value_unsafe(), into, depth + 1);
      break;
    default:  // strings, integers beyond int64 (kept as their text, never rounded)
      into.kinds |= kText;
  }
}

void JsonlTypeInference::observe_object(simdjson::dom::object object, ItemKinds& into, int depth) {
  const bool first = !into.objects_seen;
  into.objects_seen = true;
  if (!into.fields_agree) return;
  size_t i = 0;
  for (auto field : object) {
    if (first) {
      for (const auto& f : into.fields) {
        if (f.first == field.key) {  // a key twice in one object: keep it as text
          into.fields_agree = false;
          return;
        }
      }
      into.fields.emplace_back(std::string(field.key), std::make_unique<ItemKinds>());
    } else if (i >= into.fields.size() || into.fields[i].first != field.key) {
      into.fields_agree = false;
      return;
    }
    observe_item(field.value, *into.fields[i].second, depth);
    ++i;
  }
  if (i != into.fields.size()) into.fields_agree = false;
}

bool JsonlTypeInference::object_consistent(const ItemKinds& object) {
  if (!object.fields_agree || object.fields.empty()) return false;
  for (const auto& f : object.fields)
    if (!consistent(*f.second)) return false;
  return true;
}

bool JsonlTypeInference::consistent(const ItemKinds& items) {
  const uint8_t k = items.kinds;
  if ((k & ~(kInt | kFloat)) == 0) return true;  // numbers, or nothing but nulls
  if (k == kBool || k == kText) return true;
  if (k == kObject) return object_consistent(items);
  return k == kArray && items.items && consistent(*items.items);
}

DataType JsonlTypeInference::type_of_kinds(uint8_t kinds, const ItemKinds* items,
                                           const ItemKinds* object) {
  if (kinds == kObject && object) {
    std::vector<Field> fields;
    for (const auto& [name, f] : object->fields)
      fields.push_back(
          Field{name, f->kinds == 0 ? utf8() : type_of_kinds(f->kinds, f->items.get(), f.get())});
    return struct_(std::move(fields));
  }
  const bool numbers = (kinds & ~(kInt | kFloat)) == 0;
  if (kinds == kInt) return int64();
  if (numbers && (kinds & kFloat) != 0) return float64();
  if (kinds == kBool) return boolean();
  if (kinds == kArray && items) {
    return list(items->kinds == 0 ? utf8()
                                  : type_of_kinds(items->kinds, items->items.get(), items));
  }
  return utf8();
}

Schema JsonlTypeInference::schema() const {
  std::vector<Field> fields;
  fields.reserve(keys_.size());
  for (const Key& k : keys_) {
    DataType type = utf8();
    const bool numbers = (k.kinds & ~(kInt | kFloat | kBigInt)) == 0;
    if (k.kinds == kInt) {
      type = int64();
    } else if (numbers && (k.kinds & kFloat) != 0) {
      type = float64();
    } else if (numbers && (k.kinds & kBigInt) != 0) {
      throw *k.beyond_int64;  // integers only, one of them beyond int64
    } else if (k.kinds == kBool) {
      type = boolean();
    } else if (k.kinds == kArray && consistent(*k.items)) {
      type = type_of_kinds(k.kinds, k.items.get(), nullptr);
    } else if (k.kinds == kObject && object_consistent(*k.object)) {
      type = type_of_kinds(k.kinds, nullptr, k.object.get());
    }
    fields.push_back(Field{k.name, type});
  }
  return Schema(std::move(fields));
}

}  // namespace ember
