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

#include "ember/download_options.h"
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
  /// Sum of int64 or int32 (int64; InvalidArgument on overflow), float64 or float32 (float64)
  /// or bool (int64: the number of trues). Null when no value is non-null.
  Expr sum() const;
  /// Number of non-null values (int64, 0 for no rows). `lit(int64_t{1}).count()` counts rows.
  Expr count() const;
  /// Smallest / largest non-null value, of the input's type (int64, int32, float64, float32,
  /// bool, utf8, date32 or timestamp; NaN above every number), null when none.
  Expr min() const;
  /// The largest non-null value, as min().
  Expr max() const;
  /// Arithmetic mean of non-null int64, int32, float64 or float32 values (float64), null when
  /// none.
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

  // ---- structs and maps
  /// Field `name` of each struct, of the field's type; null where the struct is null.
  /// TypeError at planning for a column that is not a struct or has no such field.
  Expr field(std::string name) const;
  /// The value under `key` in each map (the first entry whose key equals it; numbers compare
  /// by value), of the map's value type; null where the map is null or has no such key.
  Expr map_get(Value key) const;

  // ---- files behind URLs
  /// The bytes of the file each row names (binary): an s3://bucket/key, http(s):// URL,
  /// file:// URL or local path (utf8); null where the URL is null. Downloads run on their own
  /// threads, up to `options.max_connections` at once per process, while the rest of the
  /// pipeline (a UDF reading the bytes) runs; rows keep their order. A file that cannot be
  /// downloaded fails the query, or under OnError::Null gives a null and is a row of
  /// QueryResult::rejected (udf "url_download(<url expression>)", error, url).
  Expr url_download(DownloadOptions options = {}) const;

  // ---- text (utf8; lengths and positions count Unicode code points; null in, null out)
  /// Number of code points (int64).
  Expr str_length() const;
  /// Unicode lower case (utf8proc's case mapping, code point by code point: ß upper-cases to ẞ).
  Expr str_lower() const;
  /// Unicode upper case, as str_lower().
  Expr str_upper() const;
  /// Whether the text contains `part` (bool; "" is in every text).
  Expr str_contains(std::string part) const;
  /// Whether the text starts with `prefix` (bool).
  Expr str_starts_with(std::string prefix) const;
  /// Whether the text ends with `suffix` (bool).
  Expr str_ends_with(std::string suffix) const;
  /// Every occurrence of `from` replaced by `to`, left to right (`from` "" changes nothing).
  Expr str_replace(std::string from, std::string to) const;
  /// The pieces between occurrences of `sep`, as list(utf8); "" splits into code points.
  Expr str_split(std::string sep) const;
  /// `length` code points from code point `start` (0-based; a negative start counts from the
  /// end); shorter where the text ends first. A negative length is an InvalidArgument.
  Expr str_slice(int64_t start, int64_t length) const;
  /// Without leading and trailing ASCII whitespace (space, tab, line feed, vertical tab, form
  /// feed, carriage return).
  Expr str_strip() const;
  /// Padded with `fill` (one code point) at the start, or at the end when `at_end`, to `width`
  /// code points; a longer text is kept whole.
  Expr str_pad(int64_t width, std::string fill = " ", bool at_end = false) const;
  /// Whether the RE2 pattern `regex` matches somewhere in the text (bool). A pattern that does
  /// not compile is an InvalidArgument when the plan is built.
  Expr str_match(std::string regex) const;
  /// Capture group `group` (0: the whole match) of the first match of `regex`; null where
  /// nothing matches.
  Expr str_extract(std::string regex, int group = 0) const;
  /// Every match of `regex` replaced by `to`, in which \1 .. \9 name capture groups.
  Expr str_replace_regex(std::string regex, std::string to) const;

  // ---- nulls and ranges
  /// This value, or `v` where it is null (coalesce(this, v)).
  Expr fill_null(Expr v) const;
  /// Whether the value equals one of `values` (bool; numbers compare by value); null where
  /// the value is null. Null entries of `values` match nothing.
  Expr is_in(std::vector<Value> values) const;
  /// lo <= this && this <= hi.
  Expr between(Expr lo, Expr hi) const;
  /// Null where this equals `other`, else this value.
  Expr nullif(Expr other) const;

  // ---- math (int32/float32 widen to int64/float64; null in, null out)
  /// Absolute value; int64 stays int64 (the one value without one, INT64_MIN, gives null).
  Expr abs() const;
  /// Rounded to `digits` decimals, halves away from zero (a negative `digits` rounds to tens,
  /// hundreds...). Integers stay int64, floats float64.
  Expr round(int digits = 0) const;
  /// Largest integral value not above (float64; an integer stays as it is).
  Expr floor() const;
  /// Smallest integral value not below, as floor().
  Expr ceil() const;
  /// Square root (float64; NaN below 0).
  Expr sqrt() const;
  /// e to this power (float64).
  Expr exp() const;
  /// Natural logarithm (float64; -inf at 0, NaN below 0).
  Expr log() const;
  /// Base-10 logarithm, as log().
  Expr log10() const;
  /// This to the power `exponent` (float64).
  Expr pow(Expr exponent) const;
  /// Limited to [lo, hi]: lo below it, hi above it (numbers; int64 when all three are integers).
  Expr clip(Expr lo, Expr hi) const;
  /// -1, 0 or 1 (int64 for integers; float64 for floats, NaN staying NaN).
  Expr sign() const;

  // ---- hashing
  /// A stable int64 hash (never negative), the same on every run, machine and version: XXH64
  /// with seed 0 of the value's bytes, shifted right one bit. The bytes: int64/int32/timestamp
  /// as 8 little-endian bytes of the int64 value; float64/float32 as the 8 little-endian bytes
  /// of the float64 value (-0.0 as 0.0, every NaN as 0x7FF8000000000000); bool as one byte 0
  /// or 1; utf8/binary as their bytes. Null gives null. `hash() % 10 < 8` splits 80/20.
  Expr hash() const;

  // ---- list functions (list and fixed_size_list; null list in, null out)
  /// Whether the list holds `v` (bool; numbers compare by value).
  Expr list_contains(Value v) const;
  /// Sum of the non-null items (int64 for integer items, float64 for floats; int64 overflow
  /// gives null); null for an empty list.
  Expr list_sum() const;
  /// Mean of the non-null items (float64), null when none.
  Expr list_mean() const;
  /// Smallest non-null item (numbers, bool, utf8, timestamps), null when none.
  Expr list_min() const;
  /// Largest non-null item, as list_min().
  Expr list_max() const;
  /// Items [start, start + length) of each list (a negative start counts from the end), as a
  /// list of the same element type.
  Expr list_slice(int64_t start, int64_t length) const;
  /// The utf8 items joined with `sep` (null items are left out).
  Expr list_join(std::string sep) const;
  /// The items in ascending order, nulls last (numbers, bool, utf8, timestamps).
  Expr list_sort() const;
  /// The distinct non-null items, in order of first appearance.
  Expr list_distinct() const;

  // ---- dates and times (timestamp; UTC)
  /// Calendar year (int64).
  Expr dt_year() const;
  /// Month, 1..12 (int64).
  Expr dt_month() const;
  /// Day of the month, 1..31 (int64).
  Expr dt_day() const;
  /// Hour, 0..23 (int64).
  Expr dt_hour() const;
  /// Minute, 0..59 (int64).
  Expr dt_minute() const;
  /// Second, 0..59 (int64).
  Expr dt_second() const;
  /// ISO day of the week: 1 Monday .. 7 Sunday (int64).
  Expr dt_day_of_week() const;
  /// The start of the `unit` ("year", "month", "week" (Monday), "day", "hour", "minute",
  /// "second") holding the instant (timestamp). Another unit is an InvalidArgument.
  Expr dt_truncate(std::string unit) const;

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

/// The texts joined end to end (utf8); null where any of them is null.
Expr concat(std::vector<Expr> parts);
/// `then` where `cond` is true, `otherwise` where it is false or null (SQL's CASE WHEN). The two
/// branches share one type (an integer and a float give float64). Chains:
/// when(a, x, when(b, y, z)).
Expr when(Expr cond, Expr then, Expr otherwise);
/// The first non-null of `values`, which share one type as when()'s branches.
Expr coalesce(std::vector<Expr> values);
/// A timestamp literal from ISO 8601 text: "2024-01-01", "2024-01-01T12:30:00",
/// "2024-01-01 12:30:00.25Z". InvalidArgument when the text is not one.
Expr lit_timestamp(std::string iso8601);
/// A date32 literal from ISO 8601 text "YYYY-MM-DD" (a day that exists). InvalidArgument when
/// the text is not one: col("day") >= lit_date("2024-01-01").
Expr lit_date(std::string iso8601);
/// Cosine similarity of two vectors (float64): list or fixed_size_list of float32 or float64,
/// either side possibly a literal list. Null where either is null, the lengths differ, or a
/// vector is all zeros.
Expr cosine_similarity(Expr a, Expr b);
/// Dot product of two vectors (float64), as cosine_similarity().
Expr dot(Expr a, Expr b);
/// Euclidean distance of two vectors (float64), as cosine_similarity().
Expr l2_distance(Expr a, Expr b);

/// Sum of two numbers: int64 when both are integers (int32 widens), float64 otherwise. Null
/// where either side is null, and where an int64 result does not fit in int64 (never wrapped).
/// A timestamp plus an integer (a duration in microseconds) is a timestamp.
Expr operator+(const Expr& a, const Expr& b);
/// Difference, typed as operator+; a timestamp minus a duration is a timestamp, and a timestamp
/// minus a timestamp the int64 microseconds between them.
Expr operator-(const Expr& a, const Expr& b);
/// Product, typed as operator+.
Expr operator*(const Expr& a, const Expr& b);
/// int64 / int64 is integer division (truncating); division by zero gives null, and so does
/// INT64_MIN / -1, whose quotient does not fit.
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
/// Negation of a number: int64 for an integer (-INT64_MIN does not fit: null), float64
/// otherwise.
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
