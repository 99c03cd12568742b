// Building the expression library's calls: one Function node per call, its constant arguments
// kept as values so that the tree stays plain data (printable, and encodable for other ranks).
#include <memory>
#include <string>

#include "core/timestamp_text.h"
#include "ember/error.h"
#include "expr/expr_access.h"
#include "expr/expr_node.h"

namespace ember {

namespace {

ExprPtr node_of(const Expr& e) { return detail::ExprAccess::node(e); }

Expr call(FunctionId f, std::vector<ExprPtr> children, std::vector<Value> params = {}) {
  ExprNode n;
  n.kind = ExprKind::Function;
  n.function = f;
  n.children = std::move(children);
  n.params = std::move(params);
  return detail::ExprAccess::make(std::make_shared<const ExprNode>(std::move(n)));
}

std::vector<ExprPtr> nodes_of(const std::vector<Expr>& es) {
  std::vector<ExprPtr> out;
  out.reserve(es.size());
  for (const Expr& e : es) out.push_back(node_of(e));
  return out;
}

}  // namespace

#define EMBER_UNARY_FUNCTION(method, id) \
  Expr Expr::method() const { return call(FunctionId::id, {node_}); }

EMBER_UNARY_FUNCTION(str_length, StrLength)
EMBER_UNARY_FUNCTION(str_lower, StrLower)
EMBER_UNARY_FUNCTION(str_upper, StrUpper)
EMBER_UNARY_FUNCTION(str_strip, StrStrip)
EMBER_UNARY_FUNCTION(abs, Abs)
EMBER_UNARY_FUNCTION(floor, Floor)
EMBER_UNARY_FUNCTION(ceil, Ceil)
EMBER_UNARY_FUNCTION(sqrt, Sqrt)
EMBER_UNARY_FUNCTION(exp, Exp)
EMBER_UNARY_FUNCTION(log, Log)
EMBER_UNARY_FUNCTION(log10, Log10)
EMBER_UNARY_FUNCTION(sign, Sign)
EMBER_UNARY_FUNCTION(hash, Hash)
EMBER_UNARY_FUNCTION(list_sum, ListSum)
EMBER_UNARY_FUNCTION(list_mean, ListMean)
EMBER_UNARY_FUNCTION(list_min, ListMin)
EMBER_UNARY_FUNCTION(list_max, ListMax)
EMBER_UNARY_FUNCTION(list_sort, ListSort)
EMBER_UNARY_FUNCTION(list_distinct, ListDistinct)
EMBER_UNARY_FUNCTION(dt_year, DtYear)
EMBER_UNARY_FUNCTION(dt_month, DtMonth)
EMBER_UNARY_FUNCTION(dt_day, DtDay)
EMBER_UNARY_FUNCTION(dt_hour, DtHour)
EMBER_UNARY_FUNCTION(dt_minute, DtMinute)
EMBER_UNARY_FUNCTION(dt_second, DtSecond)
EMBER_UNARY_FUNCTION(dt_day_of_week, DtDayOfWeek)
#undef EMBER_UNARY_FUNCTION

Expr Expr::str_contains(std::string part) const {
  return call(FunctionId::StrContains, {node_}, {Value{std::move(part)}});
}
Expr Expr::str_starts_with(std::string prefix) const {
  return call(FunctionId::StrStartsWith, {node_}, {Value{std::move(prefix)}});
}
Expr Expr::str_ends_with(std::string suffix) const {
  return call(FunctionId::StrEndsWith, {node_}, {Value{std::move(suffix)}});
}
Expr Expr::str_replace(std::string from, std::string to) const {
  return call(FunctionId::StrReplace, {node_}, {Value{std::move(from)}, Value{std::move(to)}});
}
Expr Expr::str_split(std::string sep) const {
  return call(FunctionId::StrSplit, {node_}, {Value{std::move(sep)}});
}
Expr Expr::str_slice(int64_t start, int64_t length) const {
  return call(FunctionId::StrSlice, {node_}, {Value{start}, Value{length}});
}
Expr Expr::str_pad(int64_t width, std::string fill, bool at_end) const {
  return call(FunctionId::StrPad, {node_}, {Value{width}, Value{std::move(fill)}, Value{at_end}});
}
Expr Expr::str_match(std::string regex) const {
  return call(FunctionId::StrMatch, {node_}, {Value{std::move(regex)}});
}
Expr Expr::str_extract(std::string regex, int group) const {
  return call(FunctionId::StrExtract, {node_}, {Value{std::move(regex)}, Value{int64_t{group}}});
}
Expr Expr::str_replace_regex(std::string regex, std::string to) const {
  return call(FunctionId::StrReplaceRegex, {node_},
              {Value{std::move(regex)}, Value{std::move(to)}});
}

Expr Expr::fill_null(Expr v) const { return call(FunctionId::Coalesce, {node_, node_of(v)}); }
Expr Expr::is_in(std::vector<Value> values) const {
  return call(FunctionId::IsIn, {node_}, std::move(values));
}
Expr Expr::between(Expr lo, Expr hi) const { return (lo <= *this) && (*this <= hi); }
Expr Expr::nullif(Expr other) const {
  return call(FunctionId::When, {node_of(*this == other), node_of(lit(Value{})), node_});
}

Expr Expr::round(int digits) const {
  return call(FunctionId::Round, {node_}, {Value{int64_t{digits}}});
}
Expr Expr::pow(Expr exponent) const { return call(FunctionId::Pow, {node_, node_of(exponent)}); }
Expr Expr::clip(Expr lo, Expr hi) const {
  return call(FunctionId::Clip, {node_, node_of(lo), node_of(hi)});
}

Expr Expr::field(std::string name) const {
  return call(FunctionId::StructField, {node_}, {Value{std::move(name)}});
}
Expr Expr::map_get(Value key) const { return call(FunctionId::MapGet, {node_}, {std::move(key)}); }

Expr Expr::url_download(DownloadOptions options) const {
  if (options.max_connections < 1)
    throw InvalidArgument("url_download: max_connections must be at least 1, not " +
                          std::to_string(options.max_connections));
  if (options.on_error == OnError::Skip)
    throw InvalidArgument("url_download: on_error takes OnError::Raise or OnError::Null");
  return call(
      FunctionId::UrlDownload, {node_},
      {Value{int64_t{options.max_connections}}, Value{int64_t{options.on_error == OnError::Null}}});
}

Expr Expr::list_contains(Value v) const {
  return call(FunctionId::ListContains, {node_}, {std::move(v)});
}
Expr Expr::list_slice(int64_t start, int64_t length) const {
  return call(FunctionId::ListSlice, {node_}, {Value{start}, Value{length}});
}
Expr Expr::list_join(std::string sep) const {
  return call(FunctionId::ListJoin, {node_}, {Value{std::move(sep)}});
}

Expr Expr::dt_truncate(std::string unit) const {
  return call(FunctionId::DtTruncate, {node_}, {Value{std::move(unit)}});
}

Expr concat(std::vector<Expr> parts) { return call(FunctionId::Concat, nodes_of(parts)); }
Expr when(Expr cond, Expr then, Expr otherwise) {
  return call(FunctionId::When, {node_of(cond), node_of(then), node_of(otherwise)});
}
Expr coalesce(std::vector<Expr> values) { return call(FunctionId::Coalesce, nodes_of(values)); }

Expr lit_timestamp(std::string iso8601) {
  const std::optional<int64_t> micros = parse_timestamp(iso8601);
  if (!micros) {
    throw InvalidArgument("lit_timestamp: '" + iso8601 +
                          "' is not an ISO 8601 date or time, e.g. 2024-01-01 or "
                          "2024-01-01T12:30:00");
  }
  return lit(Value{Timestamp{*micros}});
}

Expr lit_date(std::string iso8601) {
  const std::optional<int64_t> days = parse_date(iso8601);
  if (!days || *days < INT32_MIN || *days > INT32_MAX) {
    throw InvalidArgument("lit_date: '" + iso8601 + "' is not a date (write YYYY-MM-DD)");
  }
  return lit(Value{Date{int32_t(*days)}});
}

Expr cosine_similarity(Expr a, Expr b) {
  return call(FunctionId::CosineSimilarity, {node_of(a), node_of(b)});
}
Expr dot(Expr a, Expr b) { return call(FunctionId::Dot, {node_of(a), node_of(b)}); }
Expr l2_distance(Expr a, Expr b) { return call(FunctionId::L2Distance, {node_of(a), node_of(b)}); }

}  // namespace ember
