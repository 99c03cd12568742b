// Expressions: column references, literals, operators, casts and UDF calls.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ember/types.h"

namespace ember {

namespace detail {
struct ExprAccess;
}  // namespace detail

/// An immutable expression tree. Types are checked when a plan is built (TypeError).
class Expr {
 public:
  /// Renames the result column.
  Expr alias(std::string name) const;
  /// Converts to another type (int64<->float64<->utf8<->bool). A failed utf8 parse gives null.
  Expr cast(DataType to) const;
  /// True where the value is null (never null itself).
  Expr is_null() const;

  /// Aggregates, for DataFrame::agg only (anywhere else is an InvalidArgument when the plan is
  /// built). Nulls are skipped; the result column keeps this expression's name.
  /// Sum of int64 (int64; InvalidArgument on overflow), float64 (float64) or bool (int64:
  /// the number of trues). Null when no value is non-null.
  Expr sum() const;
  /// Number of non-null values (int64, 0 for no rows). `lit(int64_t{1}).count()` counts rows.
  Expr count() const;
  /// Smallest / largest non-null value (int64, float64, bool or utf8), null when none.
  Expr min() const;
  Expr max() const;
  /// Arithmetic mean of non-null int64 or float64 values (float64), null when none.
  Expr mean() const;
  // ---- relational aggregates (DataFrame::agg and GroupedDataFrame::agg)
  /// Number of distinct non-null values (int64, 0 when none). Floats compare by value, with
  /// -0.0 equal to 0.0 and every NaN one value.
  Expr count_distinct() const;
  /// The first value in input order (partition order, then row order), null included: the
  /// same on every run. Any type.
  Expr first() const;

  /// Readable form, e.g. "((id * 3) + 1)".
  std::string to_string() const;

 private:
  friend struct detail::ExprAccess;
  struct Node;  // the tree, defined inside the library
  explicit Expr(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
};

/// Reference to a column by name.
Expr col(std::string name);
/// A constant.
Expr lit(Value v);

Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
/// int64 / int64 is integer division (truncating); division by zero gives null.
Expr operator/(const Expr& a, const Expr& b);
/// Remainder with the sign of the dividend; by zero gives null.
Expr operator%(const Expr& a, const Expr& b);
Expr operator==(const Expr& a, const Expr& b);
Expr operator!=(const Expr& a, const Expr& b);
Expr operator<(const Expr& a, const Expr& b);
Expr operator<=(const Expr& a, const Expr& b);
Expr operator>(const Expr& a, const Expr& b);
Expr operator>=(const Expr& a, const Expr& b);
/// Kleene logic: false && null = false, true || null = true.
Expr operator&&(const Expr& a, const Expr& b);
Expr operator||(const Expr& a, const Expr& b);
Expr operator!(const Expr& a);
Expr operator-(const Expr& a);

}  // namespace ember
