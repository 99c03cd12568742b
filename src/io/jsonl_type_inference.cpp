// JSON-lines schema inference; see jsonl_type_inference.h.
#include "io/jsonl_type_inference.h"

#include "io/jsonl_reader.h"

namespace ember {

void JsonlTypeInference::observe(simdjson::dom::object object, const LineReader& lines) {
  ++objects_;
  for (auto field : object) {
    const std::string_view key = field.key;
    auto it = index_.find(std::string(key));
    if (it == index_.end()) {
      it = index_.emplace(std::string(key), keys_.size()).first;
      keys_.push_back(Key{std::string(key), 0});
    }
    Key& k = keys_[it->second];
    if (k.last_object == objects_) fail_repeated_key(lines, key);
    k.last_object = objects_;
    switch (field.value.type()) {
      case simdjson::dom::element_type::INT64:
        k.kinds |= kInt;
        break;
      case simdjson::dom::element_type::UINT64:  // above INT64_MAX: only a double can hold it
      case simdjson::dom::element_type::DOUBLE:
        k.kinds |= kFloat;
        break;
      case simdjson::dom::element_type::BOOL:
        k.kinds |= kBool;
        break;
      case simdjson::dom::element_type::NULL_VALUE:
        break;
      default:  // strings, objects, arrays
        k.kinds |= kText;
    }
  }
}

Schema JsonlTypeInference::schema() const {
  std::vector<Field> fields;
  fields.reserve(keys_.size());
  for (const Key& k : keys_) {
    DataType type = utf8();
    if (k.kinds == kInt) {
      type = int64();
    } else if (k.kinds == kFloat || k.kinds == (kInt | kFloat)) {
      type = float64();
    } else if (k.kinds == kBool) {
      type = boolean();
    }
    fields.push_back(Field{k.name, type});
  }
  return Schema(std::move(fields));
}

}  // namespace ember
