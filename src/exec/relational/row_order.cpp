// Row comparison over typed columns, and a stable sort with a fast path for one int64 key.
#include "exec/relational/row_order.h"

#include <algorithm>
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

/// Compares two non-null cells of one type.
int compare_cells(const Column& a, int64_t i, const Column& b, int64_t j) {
  switch (a.type().id()) {
    case TypeId::Boolean:
      return three_way<int>(a.value<bool>(i), b.value<bool>(j));
    case TypeId::Int32:
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
      return compare_lists(a, i, b, j);
    default:
      return 0;
  }
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
  std::stable_sort(idx.begin(), idx.end(),
                   [&](int64_t x, int64_t y) { return compare_rows(keys, x, keys, y, order) < 0; });
  return idx;
}

}  // namespace ember
