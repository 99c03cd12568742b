// Row comparison over typed columns, and a stable sort with fast paths for fixed-width keys.
#include "exec/relational/row_order.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <numeric>
#include <string_view>

namespace ember {

namespace {

template <class T>
int three_way(T x, T y) {
  return x < y ? -1 : (y < x ? 1 : 0);
}

int compare_doubles(double x, double y) {
  const bool nx = std::isnan(x), ny = std::isnan(y);
  if (nx || ny) return nx == ny ? 0 : (nx ? 1 : -1);
  return three_way(x, y);
}

int compare_floats(float x, float y) {
  const bool nx = std::isnan(x), ny = std::isnan(y);
  if (nx || ny) return nx == ny ? 0 : (nx ? 1 : -1);
  return three_way(x, y);
}

int compare_cells(const Column& a, int64_t i, const Column& b, int64_t j);

/// Lists compare item by item (a null item after every value), then a shorter list first.
int compare_lists(const Column& a, int64_t i, const Column& b, int64_t j) {
  const auto [af, al] = a.list_range(i);
  const auto [bf, bl] = b.list_range(j);
  for (int64_t x = af, y = bf; x < al && y < bl; ++x, ++y) {
    const bool xn = a.child().is_null(x), yn = b.child().is_null(y);
    if (xn || yn) {
      if (xn == yn) continue;
      return xn ? 1 : -1;
    }
    if (const int c = compare_cells(a.child(), x, b.child(), y)) return c;
  }
  return three_way(al - af, bl - bf);
}

/// Structs compare field by field in the type's order, a null field after every value (as a
/// list's null items); a struct's row i is row offset()+i of its children.
int compare_structs(const Column& a, int64_t i, const Column& b, int64_t j) {
  const std::vector<Column>& ac = a.children();
  const std::vector<Column>& bc = b.children();
  const int64_t x = a.offset() + i, y = b.offset() + j;
  for (size_t f = 0; f < ac.size(); ++f) {
    const bool xn = ac[f].is_null(x), yn = bc[f].is_null(y);
    if (xn || yn) {
      if (xn == yn) continue;
      return xn ? 1 : -1;
    }
    if (const int c = compare_cells(ac[f], x, bc[f], y)) return c;
  }
  return 0;
}

/// Compares two non-null cells of one type.
int compare_cells(const Column& a, int64_t i, const Column& b, int64_t j) {
  switch (a.type().id()) {
    case TypeId::Boolean:
      return three_way<int>(a.value<bool>(i), b.value<bool>(j));
    case TypeId::Int32:
    case TypeId::Date32:
      return three_way(a.values<int32_t>()[i], b.values<int32_t>()[j]);
    case TypeId::Int64:
    case TypeId::Timestamp:
      return three_way(a.values<int64_t>()[i], b.values<int64_t>()[j]);
    case TypeId::Float32:
      return compare_floats(a.values<float>()[i], b.values<float>()[j]);
    case TypeId::Float64:
      return compare_doubles(a.values<double>()[i], b.values<double>()[j]);
    case TypeId::Utf8:
    case TypeId::Binary:
      // Bytes compare unsigned, as std::string_view's char_traits do.
      return a.value<std::string_view>(i).compare(b.value<std::string_view>(j));
    case TypeId::List:
    case TypeId::FixedSizeList:
    case TypeId::Map:  // a list of key/value structs, in the order stored
      return compare_lists(a, i, b, j);
    case TypeId::Struct:
      return compare_structs(a, i, b, j);
    case TypeId::Null:
      return 0;
  }
  return 0;  // not reached: every TypeId is handled above
}

constexpr uint64_t kSign = uint64_t{1} << 63;

uint64_t float_word(double v) {
  if (std::isnan(v)) return ~uint64_t{0};  // every NaN one value, above +inf
  if (v == 0.0) v = 0.0;                   // -0.0 equal to 0.0
  const auto b = std::bit_cast<uint64_t>(v);
  return (b & kSign) ? ~b : b | kSign;
}

}  // namespace

// Integers with the sign bit flipped, floats as float_word, each inverted when descending.
bool order_words(const Column& c, bool descending, int64_t rows, std::vector<uint64_t>& out) {
  if (c.null_count() != 0) return false;
  out.resize(static_cast<size_t>(rows));
  auto fill = [&](auto word) {
    for (int64_t i = 0; i < rows; ++i) out[static_cast<size_t>(i)] = word(i);
  };
  switch (c.type().id()) {
    case TypeId::Int64:
    case TypeId::Timestamp:
      fill([v = c.values<int64_t>()](int64_t i) { return static_cast<uint64_t>(v[i]) ^ kSign; });
      break;
    case TypeId::Int32:
    case TypeId::Date32:
      fill([v = c.values<int32_t>()](int64_t i) {
        return static_cast<uint64_t>(int64_t{v[i]}) ^ kSign;
      });
      break;
    case TypeId::Float64:
      fill([v = c.values<double>()](int64_t i) { return float_word(v[i]); });
      break;
    case TypeId::Float32:
      fill([v = c.values<float>()](int64_t i) { return float_word(double{v[i]}); });
      break;
    case TypeId::Boolean:
      fill([&c](int64_t i) { return uint64_t{c.value<bool>(i)}; });
      break;
    default:
      return false;
  }
  if (descending)
    for (uint64_t& w : out) w = ~w;
  return true;
}

namespace {

/// Sorts rows by K words each, the row number last: an unstable sort of contiguous tuples is
/// then stable, and much faster than comparing typed cells through the columns.
template <size_t K>
std::vector<int64_t> sort_by_words(const std::vector<std::vector<uint64_t>>& words, int64_t rows) {
  std::vector<std::array<uint64_t, K + 1>> entries(static_cast<size_t>(rows));
  for (size_t i = 0; i < entries.size(); ++i) {
    for (size_t k = 0; k < K; ++k) entries[i][k] = words[k][i];
    entries[i][K] = i;
  }
  std::sort(entries.begin(), entries.end());
  std::vector<int64_t> idx(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) idx[i] = static_cast<int64_t>(entries[i][K]);
  return idx;
}

}  // namespace

int compare_rows(const std::vector<Column>& a, int64_t i, const std::vector<Column>& b, int64_t j,
                 const std::vector<KeyOrder>& order) {
  for (size_t k = 0; k < a.size(); ++k) {
    const bool an = a[k].is_null(i), bn = b[k].is_null(j);
    if (an || bn) {
      if (an == bn) continue;
      // A null goes first or last whatever the direction.
      return (an == order[k].nulls_first) ? -1 : 1;
    }
    const int c = compare_cells(a[k], i, b[k], j);
    if (c != 0) return order[k].descending ? -c : c;
  }
  return 0;
}

std::vector<int64_t> sorted_rows(const std::vector<Column>& keys, int64_t rows,
                                 const std::vector<KeyOrder>& order, int64_t limit) {
  std::vector<int64_t> idx(static_cast<size_t>(rows));
  std::iota(idx.begin(), idx.end(), int64_t{0});
  if (limit >= 0 && limit < rows) {
    // Ties broken by row number: the same rows a stable sort would put first.
    std::partial_sort(idx.begin(), idx.begin() + limit, idx.end(), [&](int64_t x, int64_t y) {
      const int c = compare_rows(keys, x, keys, y, order);
      return c != 0 ? c < 0 : x < y;
    });
    idx.resize(static_cast<size_t>(limit));
    return idx;
  }
  if (keys.size() == 1 && keys[0].type().id() == TypeId::Int64 && keys[0].null_count() == 0) {
    // The common case: no per-comparison dispatch.
    const int64_t* v = keys[0].values<int64_t>();
    if (order[0].descending)
      std::stable_sort(idx.begin(), idx.end(), [v](int64_t x, int64_t y) { return v[y] < v[x]; });
    else
      std::stable_sort(idx.begin(), idx.end(), [v](int64_t x, int64_t y) { return v[x] < v[y]; });
    return idx;
  }
  if (keys.size() <= 3) {
    std::vector<std::vector<uint64_t>> words(keys.size());
    bool fixed = true;
    for (size_t k = 0; k < keys.size() && fixed; ++k)
      fixed = order_words(keys[k], order[k].descending, rows, words[k]);
    if (fixed && keys.size() == 1) return sort_by_words<1>(words, rows);
    if (fixed && keys.size() == 2) return sort_by_words<2>(words, rows);
    if (fixed && keys.size() == 3) return sort_by_words<3>(words, rows);
  }
  std::stable_sort(idx.begin(), idx.end(),
                   [&](int64_t x, int64_t y) { return compare_rows(keys, x, keys, y, order) < 0; });
  return idx;
}

}  // namespace ember
