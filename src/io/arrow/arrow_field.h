// An Arrow IPC schema field as ember reads it: the ember type it becomes and how its stored
// values convert (widened integers, times in microseconds, decimals as float64, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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

}  // namespace ember::arrow_ipc
