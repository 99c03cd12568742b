// Scalar values: their types and readable text.
#include <algorithm>
#include <charconv>
#include <string>
#include <system_error>

#include "core/timestamp_text.h"
#include "ember/types.h"

namespace ember {

bool List::operator==(const List& o) const { return items == o.items; }
bool List::operator<(const List& o) const { return items < o.items; }
bool Struct::operator==(const Struct& o) const { return fields == o.fields; }
bool Struct::operator<(const Struct& o) const {
  const size_t n = std::min(fields.size(), o.fields.size());
  for (size_t i = 0; i < n; ++i) {
    if (fields[i].second < o.fields[i].second) return true;
    if (o.fields[i].second < fields[i].second) return false;
  }
  return fields.size() < o.fields.size();
}

DataType type_of(const Value& v) {
  switch (v.index()) {
    case 1:
      return boolean();
    case 2:
      return int64();
    case 3:
      return float64();
    case 4:
      return utf8();
    case 5:
      return float32();
    case 6:
      return binary();
    case 7:
      return timestamp_us();
    case 8: {
      const List& l = std::get<List>(v);
      if (l.element.id() != TypeId::Null) return list(l.element);
      // Untyped: the first non-null item decides.
      for (const Value& item : l.items) {
        if (item.index() != 0) return list(type_of(item));
      }
      return list(DataType());
    }
    case 9:
      return date32();
    case 10: {
      std::vector<Field> fields;
      for (const auto& [name, value] : std::get<Struct>(v).fields)
        fields.push_back(Field{name, type_of(value)});
      return struct_(std::move(fields));
    }
    default:
      return DataType();
  }
}

namespace {

template <class F>
std::string shortest(F x) {
  // Shortest text that parses back to the same number.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, res.ptr);
}

}  // namespace

std::string to_string(const Value& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) return shortest(*d);
  if (auto* f = std::get_if<float>(&v)) return shortest(*f);
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  if (auto* b = std::get_if<std::vector<uint8_t>>(&v)) {
    static const char* const kHex = "0123456789abcdef";
    std::string out = "0x";
    for (uint8_t byte : *b) {
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
    return out;
  }
  if (auto* t = std::get_if<Timestamp>(&v)) return format_timestamp(t->micros);
  if (auto* d = std::get_if<Date>(&v)) return format_date(d->days);
  if (auto* l = std::get_if<List>(&v)) {
    std::string out = "[";
    for (size_t i = 0; i < l->items.size(); ++i) {
      if (i) out += ", ";
      const bool quote = std::holds_alternative<std::string>(l->items[i]);
      out += quote ? "\"" + to_string(l->items[i]) + "\"" : to_string(l->items[i]);
    }
    return out + "]";
  }
  if (auto* s = std::get_if<Struct>(&v)) {  // DuckDB's rendering: {'a': 1, 'b': "text"}
    std::string out = "{";
    for (size_t i = 0; i < s->fields.size(); ++i) {
      if (i) out += ", ";
      const Value& f = s->fields[i].second;
      const bool quote = std::holds_alternative<std::string>(f);
      out += "'" + s->fields[i].first + "': " + (quote ? "\"" + to_string(f) + "\"" : to_string(f));
    }
    return out + "}";
  }
  return "null";
}

}  // namespace ember
