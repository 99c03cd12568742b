/// \file
/// Logical data types, schemas and scalar values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace ember {

/// Physical/logical type tag. Null is the type of `lit(Value{})` and coerces to any type.
/// New tags go at the end: the tag travels as a byte between processes.
enum class TypeId : uint8_t {
  Null,           ///< no values: every slot is null
  Boolean,        ///< true or false, bit-packed
  Int64,          ///< 64-bit signed integer
  Float64,        ///< 64-bit IEEE 754 floating point
  Utf8,           ///< UTF-8 text
  List,           ///< lists of any length, of one element type
  Int32,          ///< 32-bit signed integer
  Float32,        ///< 32-bit IEEE 754 floating point
  Binary,         ///< arbitrary bytes
  Timestamp,      ///< microseconds since the Unix epoch, UTC, stored as int64
  FixedSizeList,  ///< lists of exactly n items each, of one element type
  Date32,         ///< days since 1970-01-01 (proleptic Gregorian), stored as int32
  Struct,         ///< named fields, each a child column of its own type
  Map             ///< key/value pairs: the layout of a list of struct<key, value>
};

struct Field;

/// A column type. Cheap to copy; compares by value.
class DataType {
 public:
  DataType() = default;  ///< the Null type
  /// The type with tag `id`. A list type needs its element: list_of, fixed_size_list_of.
  explicit DataType(TypeId id) : id_(id) {}
  /// A list type with the given element type.
  static DataType list_of(DataType element);
  /// A list type whose every value has exactly `n` items (n >= 1).
  static DataType fixed_size_list_of(DataType element, int32_t n);
  /// A struct type with these fields (names must be distinct and non-empty).
  static DataType struct_of(std::vector<Field> fields);
  /// A map type: a list of struct<key: `key`, value: `value`> (Arrow's layout).
  static DataType map_of(DataType key, DataType value);

  /// The type's tag.
  TypeId id() const { return id_; }
  /// Element type of a list; of a map, its struct<key, value> (Null type for other types).
  const DataType& element() const;
  /// A struct's fields, in order (empty for other types).
  const std::vector<Field>& fields() const;
  /// Position of the struct field called `name`, or -1.
  int field_index(std::string_view name) const;
  /// Items per value of a fixed_size_list (0 for other types).
  int32_t list_size() const { return list_size_; }
  /// Int64, Float64, Int32 or Float32.
  bool is_numeric() const {
    return id_ == TypeId::Int64 || id_ == TypeId::Float64 || id_ == TypeId::Int32 ||
           id_ == TypeId::Float32;
  }
  /// Int64 or Int32.
  bool is_integer() const { return id_ == TypeId::Int64 || id_ == TypeId::Int32; }
  /// List, FixedSizeList or Map (a map is a list of key/value structs).
  bool is_list() const {
    return id_ == TypeId::List || id_ == TypeId::FixedSizeList || id_ == TypeId::Map;
  }
  /// A list, a map or a struct: a type whose columns hold child columns.
  bool is_nested() const { return is_list() || id_ == TypeId::Struct; }
  /// List or Map: int32 offsets into a child column.
  bool has_list_offsets() const { return id_ == TypeId::List || id_ == TypeId::Map; }
  /// Bytes per value of a fixed-width type (int32/float32: 4; int64/float64/timestamp: 8),
  /// 0 for the others.
  int byte_width() const;
  /// "bool", "int64", "float64", "utf8", "list<int64>", "fixed_size_list<float32, 384>", "null",
  /// "struct<a: int64, b: utf8>", "map<utf8, int64>".
  std::string to_string() const;
  /// Same tag and, for lists, the same element type and list size; for structs the same fields.
  bool operator==(const DataType& o) const;
  /// Not operator==.
  bool operator!=(const DataType& o) const { return !(*this == o); }

 private:
  TypeId id_ = TypeId::Null;
  int32_t list_size_ = 0;
  std::shared_ptr<const DataType> element_;
  std::shared_ptr<const std::vector<Field>> fields_;
};

/// true or false.
DataType boolean();
/// 64-bit signed integers.
DataType int64();
/// 64-bit floating point.
DataType float64();
/// UTF-8 text.
DataType utf8();
/// Lists of any length whose items are of type `element` (DataType::list_of).
DataType list(DataType element);
/// 32-bit signed integers.
DataType int32();
/// 32-bit floating point.
DataType float32();
/// Arbitrary bytes (Arrow "binary"): the layout of utf8 without the UTF-8 requirement.
DataType binary();
/// Microseconds since 1970-01-01T00:00:00 UTC.
DataType timestamp_us();
/// Calendar dates: days since 1970-01-01, as Parquet's DATE and Arrow's date32.
DataType date32();
/// Lists of exactly `n` items each, e.g. an embedding: fixed_size_list(float32(), 384).
DataType fixed_size_list(DataType element, int32_t n);
/// Named fields, e.g. an image: struct_({{"bytes", binary()}, {"path", utf8()}}).
DataType struct_(std::vector<Field> fields);
/// Key/value pairs (Arrow layout: a list of struct<key, value>), e.g. map(utf8(), int64()).
DataType map(DataType key, DataType value);

/// A named, typed column slot.
struct Field {
  std::string name;  ///< the column's name
  DataType type;     ///< the column's type
  /// Same name and type.
  bool operator==(const Field& o) const { return name == o.name && type == o.type; }
};

/// Ordered (name, DataType) fields.
class Schema {
 public:
  Schema() = default;  ///< no fields
  /// The fields, in column order.
  explicit Schema(std::vector<Field> fields) : fields_(std::move(fields)) {}
  /// Number of fields.
  int num_fields() const { return static_cast<int>(fields_.size()); }
  /// Field `i` (0-based); std::out_of_range past the end.
  const Field& field(int i) const { return fields_.at(static_cast<size_t>(i)); }
  /// Every field, in column order.
  const std::vector<Field>& fields() const { return fields_; }
  /// Position of the field called `name`, or -1.
  int index_of(std::string_view name) const;
  /// "id: int64, name: utf8".
  std::string to_string() const;
  /// The same fields in the same order.
  bool operator==(const Schema& o) const { return fields_ == o.fields_; }

 private:
  std::vector<Field> fields_;
};

struct Timestamp;
struct List;
struct Date;
struct Struct;

/// A scalar: null, bool, int64, float64, utf8, float32, binary bytes, a timestamp, a list, a
/// date or a struct. A map value is a List of Structs {key, value}.
/// int32 values are held as int64. The alternatives' order is fixed (index() is serialised).
using Value = std::variant<std::monostate, bool, int64_t, double, std::string, float,
                           std::vector<uint8_t>, Timestamp, List, Date, Struct>;

/// A point in time: microseconds since 1970-01-01T00:00:00 UTC.
struct Timestamp {
  int64_t micros = 0;  ///< negative before 1970
  /// The same instant.
  bool operator==(const Timestamp& o) const { return micros == o.micros; }
  /// Earlier than `o`.
  bool operator<(const Timestamp& o) const { return micros < o.micros; }
};

/// A calendar date: days since 1970-01-01 (proleptic Gregorian calendar).
struct Date {
  int32_t days = 0;  ///< negative before 1970
  /// The same day.
  bool operator==(const Date& o) const { return days == o.days; }
  /// Earlier than `o`.
  bool operator<(const Date& o) const { return days < o.days; }
};

/// A list value: its items (each may be null). `element` is the items' type when known.
struct List {
  std::vector<Value> items;  ///< in order; a null item is std::monostate
  DataType element;          ///< the items' type; the Null type when not known
  /// The same items (`element` is not compared).
  bool operator==(const List& o) const;
  /// Lexicographic by items.
  bool operator<(const List& o) const;
};

/// A struct value: its fields in order, each a name and a value (null is std::monostate).
struct Struct {
  std::vector<std::pair<std::string, Value>> fields;  ///< in the struct type's order
  /// The same names and values.
  bool operator==(const Struct& o) const;
  /// Lexicographic by field values.
  bool operator<(const Struct& o) const;
};

/// The DataType of a scalar (Null for monostate).
DataType type_of(const Value& v);
/// Human-readable rendering: "null", "true", "42", "1.5", "abc".
std::string to_string(const Value& v);

}  // namespace ember
