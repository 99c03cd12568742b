// List function kernels. Reductions read typed items in place; functions that produce lists
// (slice, sort, distinct) pick item indices per row and gather them once for the whole column.
#include "expr/list_function_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/buffer_access.h"
#include "core/column_take.h"
#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/item_order.h"
#include "expr/kernel_input.h"
#include "expr/utf8_output.h"

namespace ember {

namespace {

// A list column of the rows' picked items: `offsets` (rows + 1) into `picks`, indices of
// `items`.
Column gathered_lists(const Column& lists, const std::vector<int32_t>& offsets,
                      const std::vector<int64_t>& picks) {
  auto off = detail::BufferAccess::allocate_uninitialized(int64_t(offsets.size() * 4));
  std::memcpy(detail::BufferAccess::mutable_data(*off), offsets.data(), offsets.size() * 4);
  return Column::nested(list(lists.child().type()), lists.size(), -1, same_validity(lists), off,
                        take_rows(lists.child(), picks));
}

// Picks items per row with `pick(first, last, out)`; null rows pick none.
template <class Pick>
Column pick_items(const Column& lists, Pick pick) {
  std::vector<int32_t> offsets{0};
  offsets.reserve(size_t(lists.size()) + 1);
  std::vector<int64_t> picks;
  for (int64_t r = 0; r < lists.size(); ++r) {
    if (!lists.is_null(r)) {
      const auto [first, last] = lists.list_range(r);
      pick(first, last, picks);
    }
    offsets.push_back(int32_t(picks.size()));
  }
  return gathered_lists(lists, offsets, picks);
}

void slice_items(int64_t first, int64_t last, int64_t start, int64_t length,
                 std::vector<int64_t>& picks) {
  const int64_t size = last - first;
  int64_t from = start >= 0 ? start : std::max<int64_t>(0, size + start);
  from = std::min(from, size);
  const int64_t to = length >= size - from ? size : from + length;  // no overflow for huge lengths
  for (int64_t k = from; k < to; ++k) picks.push_back(first + k);
}

// The item indices in ascending order, nulls last (stable, so equal items keep their order).
void sorted_items(const ItemOrder& order, int64_t first, int64_t last,
                  std::vector<int64_t>& picks) {
  const size_t at = picks.size();
  for (int64_t k = first; k < last; ++k) picks.push_back(k);
  std::stable_sort(picks.begin() + long(at), picks.end(), order);
}

// The first occurrence of every distinct non-null item, in order of appearance.
void distinct_items(const ItemOrder& order, int64_t first, int64_t last,
                    std::vector<int64_t>& picks) {
  std::vector<int64_t> sorted;
  for (int64_t k = first; k < last; ++k) {
    if (!order.items.is_null(k)) sorted.push_back(k);
  }
  std::stable_sort(sorted.begin(), sorted.end(), order);
  std::vector<int64_t> firsts;
  for (size_t j = 0; j < sorted.size(); ++j) {
    if (j == 0 || order(sorted[j - 1], sorted[j])) firsts.push_back(sorted[j]);
  }
  std::sort(firsts.begin(), firsts.end());
  picks.insert(picks.end(), firsts.begin(), firsts.end());
}

// The index of the smallest (or largest) non-null item of [first, last), or -1.
int64_t extreme_item(const ItemOrder& order, int64_t first, int64_t last, bool largest) {
  int64_t best = -1;
  for (int64_t k = first; k < last; ++k) {
    if (order.items.is_null(k)) continue;
    if (best < 0 || (largest ? order(best, k) : order(k, best))) best = k;
  }
  return best;
}

Column extremes(const Column& lists, bool largest) {
  const ItemOrder order{lists.child()};
  ColumnBuilder b(lists.child().type(), lists.size());
  for (int64_t r = 0; r < lists.size(); ++r) {
    const int64_t k = lists.is_null(r) ? -1 : [&] {
      const auto [first, last] = lists.list_range(r);
      return extreme_item(order, first, last, largest);
    }();
    if (k < 0) {
      b.append_null();
    } else {
      b.append_from(lists.child(), k);
    }
  }
  return b.finish();
}

Column sums(const Column& lists, const DataType& type, bool mean) {
  const Column& items = lists.child();
  ColumnBuilder b(type, lists.size());
  for (int64_t r = 0; r < lists.size(); ++r) {
    const auto [first, last] = lists.list_range(r);
    int64_t count = 0, isum = 0;
    double fsum = 0;
    bool overflow = false;
    for (int64_t k = first; !lists.is_null(r) && k < last; ++k) {
      if (items.is_null(k)) continue;
      ++count;
      if (type.id() == TypeId::Int64) {
        overflow |= __builtin_add_overflow(isum, item_as_int(items, k), &isum);
      } else {
        fsum += item_as_double(items, k);
      }
    }
    if (lists.is_null(r) || count == 0 || overflow) {
      b.append_null();
    } else if (mean) {
      b.append(fsum / double(count));
    } else if (type.id() == TypeId::Int64) {
      b.append(isum);
    } else {
      b.append(fsum);
    }
  }
  return b.finish();
}

Column joined(const Column& lists, std::string_view sep) {
  const Column& items = lists.child();
  const kernel::Utf8Read read{items.offsets(), items.chars()};
  Utf8Output out(lists.size(), 0);
  for (int64_t r = 0; r < lists.size(); ++r) {
    const auto [first, last] = lists.list_range(r);
    bool any = false;
    for (int64_t k = first; !lists.is_null(r) && k < last; ++k) {
      if (items.is_null(k)) continue;
      if (any) out.append(sep);
      out.append(read(k));
      any = true;
    }
    out.end_row();
  }
  return out.finish(utf8(), same_validity(lists));
}

Column contains(const Column& lists, const Value& v) {
  const Column& items = lists.child();
  auto bits = kernel::bits_where(lists.size(), [&](int64_t r) {
    if (lists.is_null(r)) return false;
    const auto [first, last] = lists.list_range(r);
    for (int64_t k = first; k < last; ++k) {
      if (!items.is_null(k) && item_equals(items, k, v)) return true;
    }
    return false;
  });
  return Column::from_buffers(boolean(), lists.size(), -1, same_validity(lists), bits);
}

}  // namespace

Column list_function(const ExprNode& e, const Column& lists, const DataType& type) {
  switch (e.function) {
    case FunctionId::ListContains:
      return contains(lists, e.params[0]);
    case FunctionId::ListSum:
    case FunctionId::ListMean:
      return sums(lists, type, e.function == FunctionId::ListMean);
    case FunctionId::ListMin:
    case FunctionId::ListMax:
      return extremes(lists, e.function == FunctionId::ListMax);
    case FunctionId::ListSlice: {
      const int64_t start = std::get<int64_t>(e.params[0]), length = std::get<int64_t>(e.params[1]);
      return pick_items(lists, [&](int64_t f, int64_t l, std::vector<int64_t>& p) {
        slice_items(f, l, start, length, p);
      });
    }
    case FunctionId::ListJoin:
      return joined(lists, std::get<std::string>(e.params[0]));
    case FunctionId::ListSort: {
      const ItemOrder order{lists.child()};
      return pick_items(lists, [&](int64_t f, int64_t l, std::vector<int64_t>& p) {
        sorted_items(order, f, l, p);
      });
    }
    case FunctionId::ListDistinct: {
      const ItemOrder order{lists.child()};
      return pick_items(lists, [&](int64_t f, int64_t l, std::vector<int64_t>& p) {
        distinct_items(order, f, l, p);
      });
    }
    default:
      throw Error("internal: not a list kernel in " + to_string(e));
  }
}

}  // namespace ember
