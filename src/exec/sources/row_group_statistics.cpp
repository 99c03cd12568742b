// Statistics checks: min/max decoded per physical type, compared with the literal.
#include "exec/sources/row_group_statistics.h"

#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/parquet/parquet_struct_fields.h"

namespace ember {

namespace {

// A statistics bound or a literal, as a number (exact for integers) or bytes.
struct Bound {
  bool is_text = false;
  bool is_int = false;
  int64_t i = 0;
  double d = 0;
  std::string s;
};

int compare(const Bound& a, const Bound& b) {
  if (a.is_text) return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  if (a.is_int && b.is_int) return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  const double x = a.is_int ? double(a.i) : a.d, y = b.is_int ? double(b.i) : b.d;
  return x < y ? -1 : x > y ? 1 : 0;
}

std::optional<Bound> literal_bound(const Value& v) {
  Bound b;
  if (auto* i = std::get_if<int64_t>(&v))
    b.is_int = true, b.i = *i;
  else if (auto* d = std::get_if<double>(&v))
    b.d = *d;
  else if (auto* f = std::get_if<float>(&v))
    b.d = *f;
  else if (auto* t = std::get_if<Timestamp>(&v))
    b.is_int = true, b.i = t->micros;
  else if (auto* d = std::get_if<Date>(&v))
    b.is_int = true, b.i = d->days;
  else if (auto* s = std::get_if<std::string>(&v))
    b.is_text = true, b.s = *s;
  else
    return std::nullopt;
  return b;
}

template <class T>
T load(const std::string& s) {
  T v;
  std::memcpy(&v, s.data(), sizeof(T));
  return v;
}

// A min or max statistic of `leaf`, in ember's units; nullopt when absent or not trusted.
std::optional<Bound> stat_bound(const parquet::LeafColumn& leaf, const parquet::Statistics& st,
                                bool max) {
  using namespace parquet;
  const SchemaElement& e = leaf.element;
  const bool decimal =
      e.logical.kind == Logical::kDecimal || (e.converted && *e.converted == kDecimal);
  if (leaf.is_list || decimal) return std::nullopt;
  const std::optional<std::string>& exact = max ? st.max : st.min;
  const std::optional<std::string>& legacy = max ? st.legacy_max : st.legacy_min;
  const TypeId t = leaf.field.type.id();
  Bound b;
  if (t == TypeId::Utf8) {  // only min_value/max_value order strings as unsigned bytes
    if (!exact) return std::nullopt;
    b.is_text = true;
    b.s = *exact;
    return b;
  }
  // Old writers ordered the legacy min/max of unsigned columns as signed numbers.
  const bool is_unsigned = parquet::is_unsigned(e);
  const std::optional<std::string>& raw = exact || is_unsigned ? exact : legacy;
  if (!raw) return std::nullopt;
  const int time_unit = parquet::time_unit(e);
  switch (*e.type) {
    case kInt32:
      if (raw->size() != 4) return std::nullopt;
      b.is_int = true;     // a date32 bound is in days, as a Date literal is
      if (time_unit == 1)  // TIME_MILLIS, read in microseconds
        b.i = int64_t{load<int32_t>(*raw)} * 1000;
      else
        b.i = is_unsigned ? int64_t{load<uint32_t>(*raw)} : int64_t{load<int32_t>(*raw)};
      return b;
    case kInt64: {
      if (raw->size() != 8) return std::nullopt;
      b.is_int = true;
      b.i = load<int64_t>(*raw);
      // Above 2^63 - 1 an unsigned bound has no int64 value (reading such a row group fails):
      // it must not be skipped on a bound misread as negative.
      if (is_unsigned && b.i < 0) return std::nullopt;
      if (time_unit == 3) b.i = max ? b.i / 1000 + 1 : b.i / 1000 - 1;  // widen, never narrow
      if (time_unit == 1 && __builtin_mul_overflow(b.i, int64_t{1000}, &b.i)) return std::nullopt;
      if (t == TypeId::Timestamp) {
        int unit = e.logical.time_unit;
        if (e.logical.kind != Logical::kTimestamp)
          unit = e.converted && *e.converted == kTimestampMillis ? 1 : 2;
        // A bound that would overflow in microseconds proves nothing: no skipping on it.
        if (unit == 1 && __builtin_mul_overflow(b.i, int64_t{1000}, &b.i)) return std::nullopt;
        if (unit == 3) b.i = max ? b.i / 1000 + 1 : b.i / 1000 - 1;  // widen, never narrow
      }
      return b;
    }
    case kFloat:
      if (raw->size() != 4) return std::nullopt;
      b.d = load<float>(*raw);
      return b.d == b.d ? std::optional<Bound>(b) : std::nullopt;
    case kDouble:
      if (raw->size() != 8) return std::nullopt;
      b.d = load<double>(*raw);
      return b.d == b.d ? std::optional<Bound>(b) : std::nullopt;
    default:
      return std::nullopt;
  }
}

BinaryOp flipped(BinaryOp op) {
  switch (op) {
    case BinaryOp::Lt:
      return BinaryOp::Gt;
    case BinaryOp::Le:
      return BinaryOp::Ge;
    case BinaryOp::Gt:
      return BinaryOp::Lt;
    case BinaryOp::Ge:
      return BinaryOp::Le;
    default:
      return op;
  }
}

/// A column, or a field of a struct column (`col("s").field("a")`, at any depth): the column's
/// name and the path of fields; nullopt for any other expression.
std::optional<std::pair<std::string, std::vector<std::string>>> column_path(const ExprNode* e) {
  std::vector<std::string> path;
  while (e->kind == ExprKind::Function && e->function == FunctionId::StructField &&
         !e->params.empty() && std::holds_alternative<std::string>(e->params[0])) {
    path.insert(path.begin(), std::get<std::string>(e->params[0]));
    e = e->children[0].get();
  }
  if (e->kind != ExprKind::Column) return std::nullopt;
  return std::make_pair(e->name, std::move(path));
}

/// The primitive leaf whose statistics bound what `e` reads, or null.
const parquet::LeafColumn* leaf_read_by(const ExprNode* e, const ParquetFile& file) {
  const auto path = column_path(e);
  if (!path) return nullptr;
  for (const auto& c : file.schema.columns) {
    if (c.field.name != path->first) continue;
    if (path->second.empty()) return c.nested ? nullptr : &c;
    const parquet::LeafColumn* leaf = parquet::struct_leaf(c, path->second);
    return leaf && leaf->max_rep == 0 ? leaf : nullptr;
  }
  return nullptr;
}

bool comparison_may_match(const ExprNode& e, const ParquetFile& file, int rg) {
  const ExprNode* a = e.children[0].get();
  const ExprNode* b = e.children[1].get();
  BinaryOp op = e.binary;
  if (a->kind == ExprKind::Literal && b->kind != ExprKind::Literal) {
    std::swap(a, b);
    op = flipped(op);
  }
  if (b->kind != ExprKind::Literal) return true;
  const parquet::LeafColumn* leaf = leaf_read_by(a, file);
  if (!leaf) return true;
  // Days bound only days: a date column compared with anything but a date is not skipped.
  if ((leaf->field.type.id() == TypeId::Date32) != std::holds_alternative<Date>(b->literal))
    return true;
  const auto& group = file.meta.row_groups[size_t(rg)];
  const parquet::Statistics& st = group.columns[size_t(leaf->leaf_index)].stats;
  if (std::holds_alternative<std::monostate>(b->literal)) return false;  // compares to null
  if (st.null_count && *st.null_count == group.num_rows && group.num_rows > 0) return false;
  const auto lit = literal_bound(b->literal);
  const auto lo = stat_bound(*leaf, st, false), hi = stat_bound(*leaf, st, true);
  if (!lit || !lo || !hi || lit->is_text != lo->is_text) return true;
  switch (op) {
    case BinaryOp::Eq:
      return compare(*lit, *lo) >= 0 && compare(*lit, *hi) <= 0;
    case BinaryOp::Lt:
      return compare(*lo, *lit) < 0;
    case BinaryOp::Le:
      return compare(*lo, *lit) <= 0;
    case BinaryOp::Gt:
      return compare(*hi, *lit) > 0;
    case BinaryOp::Ge:
      return compare(*hi, *lit) >= 0;
    default:
      return true;
  }
}

}  // namespace

bool row_group_may_match(const ExprNode& e, const ParquetFile& file, int rg) {
  if (e.kind == ExprKind::Alias) return row_group_may_match(*e.children[0], file, rg);
  if (e.kind != ExprKind::Binary) return true;
  if (e.binary == BinaryOp::And)
    return row_group_may_match(*e.children[0], file, rg) &&
           row_group_may_match(*e.children[1], file, rg);
  if (e.binary == BinaryOp::Or)
    return row_group_may_match(*e.children[0], file, rg) ||
           row_group_may_match(*e.children[1], file, rg);
  switch (e.binary) {
    case BinaryOp::Eq:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      return comparison_may_match(e, file, rg);
    default:
      return true;
  }
}

}  // namespace ember
