// A kernel input: a whole column, or one scalar broadcast to every row without materialising it.
#pragma once

#include <utility>

#include "ember/column.h"
#include "ember/types.h"

namespace ember {

struct Operand {
  DataType type;           ///< the operand's type (a null scalar may carry its coerced type)
  bool is_scalar = false;  ///< scalar: `scalar` applies to every row; else `column`
  Column column;
  Value scalar;  ///< monostate = null

  static Operand of(Column c) {
    Operand o;
    o.type = c.type();
    o.column = std::move(c);
    return o;
  }
  static Operand of(Value v, DataType type) {
    Operand o;
    o.type = std::move(type);
    o.is_scalar = true;
    o.scalar = std::move(v);
    return o;
  }
  /// True if every row is null (a null scalar, or a Null-typed or all-null column).
  bool all_null() const {
    if (is_scalar) return std::holds_alternative<std::monostate>(scalar);
    return column.size() > 0 && column.null_count() == column.size();
  }
};

}  // namespace ember
