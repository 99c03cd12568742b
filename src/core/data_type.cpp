// DataType: type tags, list element types, struct fields and their readable names.
#include <memory>
#include <string>

#include "ember/error.h"
#include "ember/types.h"

namespace ember {

DataType DataType::list_of(DataType element) {
  DataType t(TypeId::List);
  t.element_ = std::make_shared<const DataType>(std::move(element));
  return t;
}

DataType DataType::fixed_size_list_of(DataType element, int32_t n) {
  if (n < 1) {
    throw InvalidArgument("fixed_size_list needs at least 1 item per list, got " +
                          std::to_string(n));
  }
  DataType t(TypeId::FixedSizeList);
  t.list_size_ = n;
  t.element_ = std::make_shared<const DataType>(std::move(element));
  return t;
}

DataType DataType::struct_of(std::vector<Field> fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name.empty()) throw InvalidArgument("a struct field needs a name");
    for (size_t j = 0; j < i; ++j) {
      if (fields[j].name == fields[i].name)
        throw InvalidArgument("struct field \"" + fields[i].name + "\" appears twice");
    }
  }
  DataType t(TypeId::Struct);
  t.fields_ = std::make_shared<const std::vector<Field>>(std::move(fields));
  return t;
}

DataType DataType::map_of(DataType key, DataType value) {
  DataType t(TypeId::Map);
  t.element_ = std::make_shared<const DataType>(
      struct_of({Field{"key", std::move(key)}, Field{"value", std::move(value)}}));
  return t;
}

const std::vector<Field>& DataType::fields() const {
  static const std::vector<Field> none;
  return fields_ ? *fields_ : none;
}

int DataType::field_index(std::string_view name) const {
  const std::vector<Field>& f = fields();
  for (size_t i = 0; i < f.size(); ++i)
    if (f[i].name == name) return static_cast<int>(i);
  return -1;
}

int DataType::byte_width() const {
  switch (id_) {
    case TypeId::Int32:
    case TypeId::Float32:
    case TypeId::Date32:
      return 4;
    case TypeId::Int64:
    case TypeId::Float64:
    case TypeId::Timestamp:
      return 8;
    default:
      return 0;
  }
}

const DataType& DataType::element() const {
  // A shared immutable Null type keeps element() cheap and reference-returning for non-lists.
  static const DataType null_type;
  return element_ ? *element_ : null_type;
}

std::string DataType::to_string() const {
  switch (id_) {
    case TypeId::Null:
      return "null";
    case TypeId::Boolean:
      return "bool";
    case TypeId::Int64:
      return "int64";
    case TypeId::Float64:
      return "float64";
    case TypeId::Utf8:
      return "utf8";
    case TypeId::List:
      return "list<" + element().to_string() + ">";
    case TypeId::Int32:
      return "int32";
    case TypeId::Float32:
      return "float32";
    case TypeId::Binary:
      return "binary";
    case TypeId::Timestamp:
      return "timestamp[us]";
    case TypeId::Date32:
      return "date32";
    case TypeId::FixedSizeList:
      return "fixed_size_list<" + element().to_string() + ", " + std::to_string(list_size_) + ">";
    case TypeId::Struct: {
      std::string out = "struct<";
      for (size_t i = 0; i < fields().size(); ++i) {
        if (i) out += ", ";
        out += fields()[i].name + ": " + fields()[i].type.to_string();
      }
      return out + ">";
    }
    case TypeId::Map:
      return "map<" + element().fields()[0].type.to_string() + ", " +
             element().fields()[1].type.to_string() + ">";
  }
  return "unknown";
}

bool DataType::operator==(const DataType& o) const {
  if (id_ != o.id_) return false;
  if (id_ == TypeId::Struct) return fields() == o.fields();
  if (!is_list()) return true;
  return list_size_ == o.list_size_ && element() == o.element();
}

DataType boolean() { return DataType(TypeId::Boolean); }
DataType int64() { return DataType(TypeId::Int64); }
DataType float64() { return DataType(TypeId::Float64); }
DataType utf8() { return DataType(TypeId::Utf8); }
DataType list(DataType element) { return DataType::list_of(std::move(element)); }
DataType int32() { return DataType(TypeId::Int32); }
DataType float32() { return DataType(TypeId::Float32); }
DataType binary() { return DataType(TypeId::Binary); }
DataType timestamp_us() { return DataType(TypeId::Timestamp); }
DataType date32() { return DataType(TypeId::Date32); }
DataType fixed_size_list(DataType element, int32_t n) {
  return DataType::fixed_size_list_of(std::move(element), n);
}
DataType struct_(std::vector<Field> fields) { return DataType::struct_of(std::move(fields)); }
DataType map(DataType key, DataType value) {
  return DataType::map_of(std::move(key), std::move(value));
}

}  // namespace ember
