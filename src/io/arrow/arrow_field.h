// An Arrow IPC schema field as ember reads it: the ember type it becomes and how its stored
// values convert (widened integers, times in microseconds, decimals as float64, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/types.h"
#include "io/arrow/Schema_generated.h"

namespace ember::arrow_ipc {

/// How a field's stored buffers become the ember column of ArrowField::type.
enum class Stored {
  Plain,        ///< ember's own layout (copied)
  Int,          ///< integers of stored_bytes, widened (int8/16 to int32, uint32 to int64)
  Scaled,       ///< integers of stored_bytes times multiply / divide (to microseconds)
  Half,         ///< IEEE half floats, read as float32
  Decimal,      ///< two's complement integers of stored_bytes (16 or 32) over 10^scale: float64
  FixedBinary,  ///< stored_bytes bytes per value, read as binary
  Large,        ///< 64-bit offsets (LargeUtf8, LargeBinary, LargeList) narrowed to 32 bits
  View,         ///< Utf8View, BinaryView: 16-byte views into variadic data buffers, copied
  ListView,     ///< ListView, LargeListView (stored_bytes 4 or 8): offsets and sizes, copied
  Null,         ///< the Null type: no buffers
};

struct ArrowField {
  std::string name;  ///< the top-level column's name, for errors about a value
  DataType type;
  Stored stored = Stored::Plain;
  int stored_bytes = 0;
  bool int_unsigned = false;         ///< Int: stored unsigned
  int64_t multiply = 1, divide = 1;  ///< Scaled
  int32_t scale = 0;                 ///< Decimal
  std::vector<ArrowField> children;
  /// Dictionary-encoded: the dictionary's id and its indices' width and sign (the field's other
  /// members describe the dictionary's values).
  std::optional<int64_t> dictionary;
  int index_bytes = 4;
  bool index_signed = true;
};

/// The field `f` of the column called `top` (nested fields at `depth`). Throws ParseError for a
/// malformed type and InvalidArgument, naming the column, for one ember does not read (union,
/// interval, run-end encoding). A struct's unnamed fields are named f<i> and
/// repeated names renamed (x, x_1); a Map's entries become ember's struct<key, value> whatever
/// Arrow calls them.
ArrowField map_field(const org::apache::arrow::flatbuf::Field* f, const std::string& top,
                     int depth);

// The rules both schema mappings share (IPC's FlatBuffers fields, the C Data Interface's
// format strings: arrow_c_schema.h).

/// An integer of `bits` (8, 16, 32 or 64): the smaller ones widen to int32 and uint32 to int64;
/// uint64 reads as int64 where its values fit (checked as each batch is read).
void set_integer(ArrowField& out, int bits, bool is_signed);
/// Counts of `bytes` bytes, read as `type` in microseconds: times `multiply_divide.first`,
/// divided by `.second`.
void set_scaled(ArrowField& out, DataType type, int bytes,
                std::pair<int64_t, int64_t> multiply_divide);
/// A struct's ember fields over its mapped `children`: an empty name becomes f<position> (the
/// name Arrow's integration JSON gives such fields) and a repeated one is renamed as repeated
/// columns are (x, x_1), since ember's struct fields are named and distinct.
std::vector<Field> struct_fields(std::vector<std::string> names,
                                 const std::vector<ArrowField>& children);
/// `out`, whose one child is a struct of two fields (whatever Arrow names them), as ember's
/// map(key, value) with entries struct<key, value>. Throws ParseError for any other child.
void set_map(ArrowField& out);

}  // namespace ember::arrow_ipc
