// A typed, append-only column under construction for the CSV reader: values go straight into
// pre-sized Arrow buffers through inline appends, with no per-value type dispatch or call.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "ember/column.h"

namespace ember {

/// Builds one Int64, Float64, Boolean or Utf8 column. The caller appends only values of the
/// builder's type (the CSV reader parses each field as its column's type). Not thread-safe.
class CsvColumnBuilder {
 public:
  /// `type` must be Int64, Float64, Boolean or Utf8; `capacity` rows are reserved up front.
  CsvColumnBuilder(DataType type, int64_t capacity);

  void append_null() {
    if (length_ == row_capacity_) grow_rows();
    if (!validity_) start_validity();
    // A null slot still gets defined value bytes (the buffers are not zero-filled).
    if (type_.id() == TypeId::Utf8) {
      offsets()[length_ + 1] = static_cast<int32_t>(chars_used_);
    } else if (type_.id() != TypeId::Boolean) {
      std::memset(values_data_ + 8 * length_, 0, 8);
    }
    ++length_;
    ++null_count_;
  }
  void append_int64(int64_t v) { append_fixed(v); }
  void append_float64(double v) { append_fixed(v); }
  void append_bool(bool v) {
    if (length_ == row_capacity_) grow_rows();
    if (v) set_bit(values_data_, length_);
    commit_valid();
  }
  void append_utf8(const char* data, uint32_t size) {
    if (length_ == row_capacity_) grow_rows();
    const int64_t end = chars_used_ + size;
    if (end > chars_capacity_) grow_chars(end);
    std::memcpy(chars_data_ + chars_used_, data, size);
    chars_used_ = end;
    offsets()[length_ + 1] = static_cast<int32_t>(end);
    commit_valid();
  }

  /// Makes room for `bytes` more characters in `rows` more values. When the buffer must grow,
  /// it is sized for all reserved rows at the average width so far: one allocation per batch
  /// rather than a series of doubling copies (and fresh pages faulted in for each).
  void reserve_chars(int64_t bytes, int64_t rows) {
    if (chars_used_ + bytes > chars_capacity_) grow_chars_for(chars_used_ + bytes, length_ + rows);
  }

  /// The finished column; the builder must not be used afterwards.
  Column finish();

 private:
  template <class T>
  void append_fixed(T v) {
    if (length_ == row_capacity_) grow_rows();
    std::memcpy(values_data_ + sizeof(T) * length_, &v, sizeof(T));
    commit_valid();
  }
  void commit_valid() {
    if (validity_) set_bit(detail::BufferAccess::mutable_data(*validity_), length_);
    ++length_;
  }
  int32_t* offsets() { return reinterpret_cast<int32_t*>(values_data_); }
  int64_t value_bytes(int64_t rows) const;
  void grow_rows();
  void grow_chars(int64_t needed);
  void grow_chars_for(int64_t needed, int64_t rows);
  void start_validity();

  DataType type_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  int64_t row_capacity_ = 0;
  std::shared_ptr<Buffer> values_;  // fixed-width values, bit-packed booleans or int32 offsets
  uint8_t* values_data_ = nullptr;
  std::shared_ptr<Buffer> validity_;  // created at the first null
  std::shared_ptr<Buffer> chars_;     // utf8 only
  char* chars_data_ = nullptr;
  int64_t chars_used_ = 0;
  int64_t chars_capacity_ = 0;
};

}  // namespace ember
