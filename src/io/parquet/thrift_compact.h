// Thrift's compact protocol, the encoding of Parquet's metadata: a reader that walks structs
// field by field (skipping what it does not know) and a writer for the fields ember emits.
// Hand-written rather than generated: docs/design/parquet.md says why.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ember::thrift {

/// Compact-protocol type codes.
enum WireType : uint8_t {
  kStop = 0,
  kTrue = 1,
  kFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12
};

/// Reads from a byte range; every read is bounds-checked and throws std::runtime_error
/// (callers turn it into a ParseError naming the file) on truncated or malformed input.
class CompactReader {
 public:
  CompactReader(const uint8_t* data, size_t size) : p_(data), end_(data + size), begin_(data) {}

  /// The next field of the current struct: false at its end. Sets `id` and `type`.
  bool next_field(int16_t* id, uint8_t* type);
  void begin_struct();
  void end_struct();
  /// A list header: its element type and size.
  uint32_t list_header(uint8_t* elem_type);

  bool read_bool(uint8_t type) { return type == kTrue ? true : type == kFalse ? false : byte(); }
  int64_t read_int() { return zigzag(varint()); }
  /// An i8 field: one plain byte, unlike the zigzag varints of the wider integers.
  int8_t read_byte() { return static_cast<int8_t>(byte()); }
  std::string read_binary();
  double read_double();
  /// Skips a value of `type` (structs, lists and maps recursively, depth-limited).
  void skip(uint8_t type, int depth = 0);
  size_t consumed() const { return static_cast<size_t>(p_ - begin_); }

 private:
  uint64_t varint();
  static int64_t zigzag(uint64_t v) {
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  uint8_t byte();
  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* begin_;
  int16_t last_id_ = 0;
  int16_t stack_[64] = {};
  int depth_ = 0;
};

/// Appends compact-protocol values to a string.
class CompactWriter {
 public:
  void field(int16_t id, uint8_t type);
  void begin_struct();
  void end_struct();  ///< writes the stop byte
  void list_header(uint8_t elem_type, uint32_t size);
  void i32(int16_t id, int64_t v) { field(id, kI32), int_value(v); }
  void i64(int16_t id, int64_t v) { field(id, kI64), int_value(v); }
  void binary(int16_t id, std::string_view s) { field(id, kBinary), binary_value(s); }
  void boolean(int16_t id, bool v);
  void int_value(int64_t v) {
    varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
  void binary_value(std::string_view s);
  void varint(uint64_t v);
  std::string& out() { return out_; }

 private:
  std::string out_;
  int16_t last_id_ = 0;
  int16_t stack_[64] = {};
  int depth_ = 0;
};

}  // namespace ember::thrift
