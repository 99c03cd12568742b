/// \file
/// Immutable columns in the Arrow memory layout: validity bitmap, values, offsets.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "ember/types.h"

namespace ember {

namespace detail {
struct BufferAccess;
}  // namespace detail

/// A contiguous, 64-byte aligned byte region, shared by the columns that use it. The bytes may
/// live in private heap memory or in a shared-memory mapping the engine made.
class Buffer {
 public:
  /// Zero-filled heap buffer of `size` bytes.
  static std::shared_ptr<Buffer> allocate(int64_t size);
  /// A heap buffer holding a copy of the `size` bytes at `data` (cheaper than allocate and a
  /// copy: the bytes are written once).
  static std::shared_ptr<Buffer> copy_of(const void* data, int64_t size);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  /// The first byte.
  const uint8_t* data() const { return data_; }
  /// Size in bytes.
  int64_t size() const { return size_; }

 private:
  friend struct detail::BufferAccess;
  Buffer() = default;
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  bool owns_ = false;
  std::shared_ptr<void> owner_;
};

/// An immutable column: cheap to copy (buffers are shared). Layout per type:
///  - Boolean: validity bitmap + bit-packed values
///  - Int64/Float64: validity bitmap + fixed-width values
///  - Int32/Float32: validity bitmap + 4-byte values; Timestamp: like Int64 (microseconds);
///    Date32: like Int32 (days)
///  - Utf8/Binary: validity bitmap + int32 offsets (length+1) + character data
///  - List: validity bitmap + int32 offsets (length+1) into a child column of the items
///  - FixedSizeList(n): validity bitmap + a child column of n items per row (row i is items
///    [(offset()+i)*n, (offset()+i+1)*n) of the child)
///  - Struct: validity bitmap + one child column per field, row i of the struct being row
///    offset()+i of each child (a child's own nulls and the struct's are separate)
///  - Map: the List layout, its child a struct<key, value> column
///  - Null: length only, every slot null
/// A column may be a zero-copy slice: `offset()` is the logical start inside its buffers.
class Column {
 public:
  Column() = default;  ///< an empty int64 column

  /// A column of these values, of their type: int64, float64, bool, utf8, int32, float32,
  /// timestamp_us, date32 or binary (a byte vector per row). An empty std::optional is a null.
  ///@{
  static Column from(std::vector<int64_t> v);
  static Column from(std::vector<double> v);
  static Column from(std::vector<bool> v);
  static Column from(std::vector<std::string> v);
  static Column from(std::vector<std::optional<int64_t>> v);
  static Column from(std::vector<std::optional<double>> v);
  static Column from(std::vector<std::optional<bool>> v);
  static Column from(std::vector<std::optional<std::string>> v);
  static Column from(std::vector<int32_t> v);
  static Column from(std::vector<float> v);
  static Column from(std::vector<Timestamp> v);
  static Column from(std::vector<Date> v);
  /// A binary column, one byte string per row.
  static Column from(std::vector<std::vector<uint8_t>> v);
  static Column from(std::vector<std::optional<int32_t>> v);
  static Column from(std::vector<std::optional<float>> v);
  static Column from(std::vector<std::optional<Timestamp>> v);
  static Column from(std::vector<std::optional<Date>> v);
  static Column from(std::vector<std::optional<std::vector<uint8_t>>> v);
  ///@}
  /// A list(T) column, one list per row; T is any element type `from` accepts (an optional
  /// T gives null items). Cast to fixed_size_list(T, n) when every list has n items.
  template <class T>
  static Column from(std::vector<std::vector<T>> v);
  /// As above, a nullopt row being a null list.
  template <class T>
  static Column from(std::vector<std::optional<std::vector<T>>> v);
  /// `n` nulls of type `type`.
  static Column nulls(DataType type, int64_t n);
  /// `n` copies of a scalar (null scalar gives nulls of `type`).
  static Column repeat(const Value& v, DataType type, int64_t n);
  /// Assembles a column from raw Arrow buffers. `validity` may be null (all valid).
  /// For Utf8, `values` holds int32 offsets and `data` the characters; otherwise `data` is null.
  static Column from_buffers(DataType type, int64_t length, int64_t null_count,
                             std::shared_ptr<Buffer> validity, std::shared_ptr<Buffer> values,
                             std::shared_ptr<Buffer> data = nullptr, int64_t offset = 0);
  /// Assembles a List (`offsets`: int32, length+1 from `offset`, indexing rows of `child`) or a
  /// FixedSizeList (`offsets` null; row i is child rows [(offset+i)*n, (offset+i+1)*n)).
  static Column nested(DataType type, int64_t length, int64_t null_count,
                       std::shared_ptr<Buffer> validity, std::shared_ptr<Buffer> offsets,
                       Column child, int64_t offset = 0);
  /// Assembles a Struct column of `type` from one child column per field (each of the field's
  /// type, at least offset+length rows); row i is row offset+i of every child.
  static Column nested(DataType type, int64_t length, int64_t null_count,
                       std::shared_ptr<Buffer> validity, std::vector<Column> children,
                       int64_t offset = 0);
  /// A struct column from named children of equal length, no struct-level nulls (zero-copy:
  /// the children are shared). InvalidArgument for unequal lengths or repeated names.
  static Column struct_of(std::vector<std::pair<std::string, Column>> children);
  /// Concatenates columns of one type: copies, except that parts which are consecutive slices
  /// of the same buffers join into one slice of them.
  static Column concat(const std::vector<Column>& parts);

  /// Number of rows.
  int64_t size() const { return length_; }
  /// The column's type.
  DataType type() const { return type_; }
  /// Number of null rows.
  int64_t null_count() const { return null_count_; }
  /// Whether row `i` is null (unchecked index).
  bool is_null(int64_t i) const {
    if (type_.id() == TypeId::Null) return true;
    return validity_ && !bit_at(validity_->data(), offset_ + i);
  }
  /// Whether row `i` holds a value: not is_null(i).
  bool is_valid(int64_t i) const { return !is_null(i); }

  /// Value at row i; T is int64_t, double, bool or std::string_view (std::string also works).
  /// Unchecked for speed except the type; reading a null slot gives an unspecified value.
  template <class T>
  T value(int64_t i) const;
  /// Value at row i as a variant (monostate for null).
  Value get(int64_t i) const;

  /// The items of the list at row i (List or FixedSizeList) as a zero-copy slice of child().
  Column list(int64_t i) const;
  /// Item range [first, last) of row i inside child() (List or FixedSizeList).
  std::pair<int64_t, int64_t> list_range(int64_t i) const {
    if (type_.id() == TypeId::FixedSizeList) {
      const int64_t n = type_.list_size();
      return {(offset_ + i) * n, (offset_ + i + 1) * n};
    }
    const int32_t* o = offsets();
    return {o[i], o[i + 1]};
  }
  /// The items of every row of a list column, unsliced (List, FixedSizeList and Map only).
  const Column& child() const;
  /// A struct's field `name` as a column of this column's rows: zero-copy for the values; a
  /// row where the struct is null is null in the result. TypeError for another type,
  /// InvalidArgument naming the fields for an unknown name.
  Column field(const std::string& name) const;
  /// As above, the field at position `i`.
  Column field(int i) const;
  /// A struct's child columns, unsliced (row offset()+i of each is row i); empty otherwise.
  const std::vector<Column>& children() const;

  /// Zero-copy slice [offset, offset+length).
  Column slice(int64_t offset, int64_t length) const;
  /// Gathers the rows where `mask` (a Boolean column of equal length) is true (null = false).
  Column filter(const Column& mask) const;

  // ---- raw access for vectorised kernels and serialisation
  /// The column's first row inside its buffers: non-zero for a slice.
  int64_t offset() const { return offset_; }
  /// Validity bitmap (bit index offset()+i), or nullptr when every slot is valid.
  const uint8_t* validity_bits() const { return validity_ ? validity_->data() : nullptr; }
  /// Fixed-width values already adjusted by offset() (Int64/Float64).
  template <class T>
  const T* values() const {
    return reinterpret_cast<const T*>(values_->data()) + offset_;
  }
  /// Bit-packed booleans (bit index offset()+i).
  const uint8_t* bool_bits() const { return values_->data(); }
  /// Utf8/Binary/List offsets already adjusted by offset(): string i is
  /// chars()[offsets()[i], offsets()[i+1]).
  const int32_t* offsets() const {
    return reinterpret_cast<const int32_t*>(values_->data()) + offset_;
  }
  /// Utf8/Binary character data, indexed by offsets() ("" for other types).
  const char* chars() const { return data_ ? reinterpret_cast<const char*>(data_->data()) : ""; }
  /// The validity bitmap's buffer, or null when every slot is valid (as from_buffers takes it).
  const std::shared_ptr<Buffer>& validity_buffer() const { return validity_; }
  /// The buffer of values, bits or offsets (as from_buffers takes it).
  const std::shared_ptr<Buffer>& values_buffer() const { return values_; }
  /// The Utf8/Binary character buffer; null for other types (as from_buffers takes it).
  const std::shared_ptr<Buffer>& data_buffer() const { return data_; }
  /// Bytes referenced by this column's buffers (for memory accounting).
  int64_t byte_size() const;

 private:
  // Bit i of an Arrow bitmap (LSB first).
  static bool bit_at(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

  DataType type_ = DataType(TypeId::Int64);
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  int64_t offset_ = 0;
  std::shared_ptr<Buffer> validity_;
  std::shared_ptr<Buffer> values_;
  std::shared_ptr<Buffer> data_;
  std::shared_ptr<const Column> child_;                  // List, FixedSizeList and Map items
  std::shared_ptr<const std::vector<Column>> children_;  // Struct fields

  // A nested column's common part: type, length, offset and validity (checked; null count
  // counted when negative); the caller adds its offsets and children.
  static Column shaped(DataType type, int64_t length, int64_t null_count,
                       std::shared_ptr<Buffer> validity, int64_t offset);
  // Builds a list column from int32 offsets and the items (row validity in `valid`, if any).
  static Column list_from(const std::vector<int32_t>& offsets, Column child,
                          const std::vector<bool>& valid);
};

/// An int64 value; TypeError for another column type.
template <>
inline int64_t Column::value<int64_t>(int64_t i) const {
  if (type_.id() != TypeId::Int64)
    throw TypeError("column is " + type_.to_string() + ", not int64");
  return values<int64_t>()[i];
}
/// A float64 value; TypeError for another column type.
template <>
inline double Column::value<double>(int64_t i) const {
  if (type_.id() != TypeId::Float64)
    throw TypeError("column is " + type_.to_string() + ", not float64");
  return values<double>()[i];
}
/// A bool value; TypeError for another column type.
template <>
inline bool Column::value<bool>(int64_t i) const {
  if (type_.id() != TypeId::Boolean)
    throw TypeError("column is " + type_.to_string() + ", not bool");
  return bit_at(bool_bits(), offset_ + i);
}
/// An int32 value; TypeError for another column type.
template <>
inline int32_t Column::value<int32_t>(int64_t i) const {
  if (type_.id() != TypeId::Int32)
    throw TypeError("column is " + type_.to_string() + ", not int32");
  return values<int32_t>()[i];
}
/// A float32 value; TypeError for another column type.
template <>
inline float Column::value<float>(int64_t i) const {
  if (type_.id() != TypeId::Float32)
    throw TypeError("column is " + type_.to_string() + ", not float32");
  return values<float>()[i];
}
/// A timestamp_us value; TypeError for another column type.
template <>
inline Timestamp Column::value<Timestamp>(int64_t i) const {
  if (type_.id() != TypeId::Timestamp)
    throw TypeError("column is " + type_.to_string() + ", not timestamp[us]");
  return Timestamp{values<int64_t>()[i]};
}
/// A date32 value; TypeError for another column type.
template <>
inline Date Column::value<Date>(int64_t i) const {
  if (type_.id() != TypeId::Date32)
    throw TypeError("column is " + type_.to_string() + ", not date32");
  return Date{values<int32_t>()[i]};
}
/// Utf8 text, or the bytes of a binary value.
template <>
inline std::string_view Column::value<std::string_view>(int64_t i) const {
  if (type_.id() != TypeId::Utf8 && type_.id() != TypeId::Binary)
    throw TypeError("column is " + type_.to_string() + ", not utf8");
  const int32_t* o = offsets();
  return std::string_view(chars() + o[i], static_cast<size_t>(o[i + 1] - o[i]));
}
/// A copy of value<std::string_view>.
template <>
inline std::string Column::value<std::string>(int64_t i) const {
  return std::string(value<std::string_view>(i));
}

template <class T>
Column Column::from(std::vector<std::vector<T>> v) {
  std::vector<T> items;
  std::vector<int32_t> offsets{0};
  offsets.reserve(v.size() + 1);
  for (auto& l : v) {
    for (auto&& x : l) items.push_back(std::move(x));
    offsets.push_back(static_cast<int32_t>(items.size()));
  }
  return list_from(offsets, from(std::move(items)), {});
}

template <class T>
Column Column::from(std::vector<std::optional<std::vector<T>>> v) {
  std::vector<T> items;
  std::vector<int32_t> offsets{0};
  std::vector<bool> valid;
  for (auto& l : v) {
    valid.push_back(l.has_value());
    if (l) {
      for (auto&& x : *l) items.push_back(std::move(x));
    }
    offsets.push_back(static_cast<int32_t>(items.size()));
  }
  return list_from(offsets, from(std::move(items)), valid);
}

/// Builds a column row by row (amortised growth). Not thread-safe.
class ColumnBuilder {
 public:
  /// An empty builder of `type`, with room for `capacity` rows.
  explicit ColumnBuilder(DataType type, int64_t capacity = 0);
  /// Takes over the other builder's rows.
  ColumnBuilder(ColumnBuilder&&) noexcept;
  /// Takes over the other builder's rows.
  ColumnBuilder& operator=(ColumnBuilder&&) noexcept;
  ~ColumnBuilder();

  /// Appends a null (of any type).
  void append_null();
  /// Appends a value. InvalidArgument when the builder's type does not take it: an integer
  /// fills int64, int32 (range checked), float64 or float32; a floating-point number float64
  /// or float32; bool, Timestamp, Date and text only their own type.
  ///@{
  void append(bool v);
  void append(int64_t v);
  void append(double v);
  void append(int32_t v);
  void append(float v);
  void append(Timestamp v);
  void append(Date v);
  /// Text for utf8, bytes for binary.
  void append(std::string_view v);
  void append(const char* v) { append(std::string_view(v)); }
  ///@}
  /// Appends a scalar; it must match the builder's type (or be null). Int64 widens to Float64
  /// and narrows to Int32 (range checked); a List fills a list or fixed_size_list builder.
  void append_value(const Value& v);
  /// Appends row i of `c` (same type; a list row also fills a fixed_size_list of its size).
  void append_from(const Column& c, int64_t i);
  /// Makes room for `rows` rows in all, so appending up to them does not reallocate.
  void reserve(int64_t rows);
  /// Rows appended since the last finish().
  int64_t size() const;
  /// The type of the column it builds.
  DataType type() const;
  /// Produces the column and resets the builder to empty.
  Column finish();

 private:
  struct State;
  void check_list_size(int64_t n) const;
  std::unique_ptr<State> s_;
};

}  // namespace ember
