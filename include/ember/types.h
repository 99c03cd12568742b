// Logical data types, schemas and scalar values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ember {

/// Physical/logical type tag. Null is the type of `lit(Value{})` and coerces to any type.
enum class TypeId : uint8_t { Null, Boolean, Int64, Float64, Utf8, List };

/// A column type. Cheap to copy; compares by value.
class DataType {
 public:
  DataType() = default;  ///< the Null type
  explicit DataType(TypeId id) : id_(id) {}
  /// A list type with the given element type.
  static DataType list_of(DataType element);

  TypeId id() const { return id_; }
  /// Element type of a list (Null type for other types).
  const DataType& element() const;
  bool is_numeric() const { return id_ == TypeId::Int64 || id_ == TypeId::Float64; }
  /// "bool", "int64", "float64", "utf8", "list<int64>", "null".
  std::string to_string() const;
  bool operator==(const DataType& o) const;
  bool operator!=(const DataType& o) const { return !(*this == o); }

 private:
  TypeId id_ = TypeId::Null;
  std::shared_ptr<const DataType> element_;
};

DataType boolean();
DataType int64();
DataType float64();
DataType utf8();
DataType list(DataType element);

/// A named, typed column slot.
struct Field {
  std::string name;
  DataType type;
  bool operator==(const Field& o) const { return name == o.name && type == o.type; }
};

/// Ordered (name, DataType) fields.
class Schema {
 public:
  Schema() = default;
  explicit Schema(std::vector<Field> fields) : fields_(std::move(fields)) {}
  int num_fields() const { return static_cast<int>(fields_.size()); }
  const Field& field(int i) const { return fields_.at(static_cast<size_t>(i)); }
  const std::vector<Field>& fields() const { return fields_; }
  /// Position of the field called `name`, or -1.
  int index_of(std::string_view name) const;
  /// "id: int64, name: utf8".
  std::string to_string() const;
  bool operator==(const Schema& o) const { return fields_ == o.fields_; }

 private:
  std::vector<Field> fields_;
};

/// A scalar: null, bool, int64, float64 or utf8.
using Value = std::variant<std::monostate, bool, int64_t, double, std::string>;

/// The DataType of a scalar (Null for monostate).
DataType type_of(const Value& v);
/// Human-readable rendering: "null", "true", "42", "1.5", "abc".
std::string to_string(const Value& v);

}  // namespace ember
