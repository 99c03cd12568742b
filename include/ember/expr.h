/// \file
/// Expressions: column references, literals, operators, casts and UDF calls.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
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
  /// Converts to another type: between bool, int32, int64, float32, float64 and utf8, between
  /// int64/utf8 and timestamp_us, utf8 to binary, and list(T) <-> fixed_size_list(T, n) (a list
  /// of another length gives null). A failed utf8 parse or an out-of-range number gives null.
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
  /// The largest non-null value, as min().
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
  /// Every value of the group in input order (as first()), nulls included, as one list(T)
  /// (DuckDB's list(); Spark's collect_list drops nulls). Any type, lists too.
  Expr list() const;

  // ---- lists (list and fixed_size_list columns)
  /// Number of items of each list (int64; null for a null list).
  Expr list_size() const;
  /// Item `i` of each list (0-based; a negative i counts from the end), of the element type;
  /// null where the list is null or shorter.
  Expr list_get(int64_t i) const;

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

/// Sum of two numbers: int64 when both are integers (int32 widens; wraps on overflow),
/// float64 otherwise. Null where either side is null.
Expr operator+(const Expr& a, const Expr& b);
/// Difference, typed as operator+.
Expr operator-(const Expr& a, const Expr& b);
/// Product, typed as operator+.
Expr operator*(const Expr& a, const Expr& b);
/// int64 / int64 is integer division (truncating); division by zero gives null.
Expr operator/(const Expr& a, const Expr& b);
/// Remainder with the sign of the dividend; by zero gives null.
Expr operator%(const Expr& a, const Expr& b);
/// Equality (bool) of two numbers (int64 against float64 compares as float64), or of two
/// values of one type: utf8 (bytewise), bool (false < true), binary or timestamp. Null where
/// either side is null.
Expr operator==(const Expr& a, const Expr& b);
/// Inequality, as operator==.
Expr operator!=(const Expr& a, const Expr& b);
/// Less than, as operator==.
Expr operator<(const Expr& a, const Expr& b);
/// Less than or equal, as operator==.
Expr operator<=(const Expr& a, const Expr& b);
/// Greater than, as operator==.
Expr operator>(const Expr& a, const Expr& b);
/// Greater than or equal, as operator==.
Expr operator>=(const Expr& a, const Expr& b);
/// Kleene logic: false && null = false, true || null = true.
Expr operator&&(const Expr& a, const Expr& b);
/// Or of two bools, with the Kleene logic of operator&&.
Expr operator||(const Expr& a, const Expr& b);
/// Not of a bool; null stays null.
Expr operator!(const Expr& a);
/// Negation of a number: int64 (wrapping) for an integer, float64 otherwise.
Expr operator-(const Expr& a);

// ---- a plain C++ value beside an expression is a literal
namespace detail {
template <class T>
using Plain = std::remove_cvref_t<T>;
template <class T>
inline constexpr bool is_literal_value = std::is_same_v<Plain<T>, bool> ||
                                         std::is_integral_v<Plain<T>> ||
                                         std::is_floating_point_v<Plain<T>> ||
                                         std::is_same_v<Plain<T>, std::string> ||
                                         (std::is_convertible_v<T, const char*> &&
                                          !std::is_same_v<Plain<T>, std::nullptr_t>);
}  // namespace detail
/// A C++ value an operator takes as a literal: bool, an integer (as int64), a floating-point
/// number (as float64), or a string (const char* or std::string, as utf8). Expr itself never
/// converts from a value, so a column name is never mistaken for a string literal.
template <class T>
concept LiteralValue = detail::is_literal_value<T>;

namespace detail {
/// lit() of a LiteralValue, with its ember type: bool, int64, float64 or utf8.
template <LiteralValue T>
Expr literal(const T& v) {
  using V = std::remove_cvref_t<T>;
  if constexpr (std::same_as<V, bool>) {
    return lit(Value{v});
  } else if constexpr (std::integral<V>) {
    return lit(Value{static_cast<int64_t>(v)});
  } else if constexpr (std::floating_point<V>) {
    return lit(Value{static_cast<double>(v)});
  } else {
    return lit(Value{std::string(v)});
  }
}
}  // namespace detail

#define EMBER_LITERAL_OPERATOR(op)              \
  template <LiteralValue T>                     \
  Expr operator op(const Expr& a, const T& b) { \
    return a op detail::literal(b);             \
  }                                             \
  template <LiteralValue T>                     \
  Expr operator op(const T& a, const Expr& b) { \
    return detail::literal(a) op b;             \
  }
EMBER_LITERAL_OPERATOR(+)
EMBER_LITERAL_OPERATOR(-)
EMBER_LITERAL_OPERATOR(*)
EMBER_LITERAL_OPERATOR(/)
EMBER_LITERAL_OPERATOR(%)
EMBER_LITERAL_OPERATOR(==)
EMBER_LITERAL_OPERATOR(!=)
EMBER_LITERAL_OPERATOR(<)
EMBER_LITERAL_OPERATOR(<=)
EMBER_LITERAL_OPERATOR(>)
EMBER_LITERAL_OPERATOR(>=)
EMBER_LITERAL_OPERATOR(&&)
EMBER_LITERAL_OPERATOR(||)
#undef EMBER_LITERAL_OPERATOR

}  // namespace ember
