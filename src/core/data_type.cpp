// DataType: type tags, list element types and their readable names.
#include <memory>
#include <string>

#include "ember/types.h"

namespace ember {

DataType DataType::list_of(DataType element) {
  DataType t(TypeId::List);
  t.element_ = std::make_shared<const DataType>(std::move(element));
  return t;
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
  }
  return "unknown";
}

bool DataType::operator==(const DataType& o) const {
  if (id_ != o.id_) return false;
  if (id_ != TypeId::List) return true;
  return element() == o.element();
}

DataType boolean() { return DataType(TypeId::Boolean); }
DataType int64() { return DataType(TypeId::Int64); }
DataType float64() { return DataType(TypeId::Float64); }
DataType utf8() { return DataType(TypeId::Utf8); }
DataType list(DataType element) { return DataType::list_of(std::move(element)); }

}  // namespace ember
