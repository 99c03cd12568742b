// List kernels: they read the offsets (or the fixed size) and gather from the item column.
#include "expr/list_kernels.h"

#include <vector>

namespace ember {

Column list_sizes(const Column& lists) {
  const int64_t n = lists.size();
  std::vector<std::optional<int64_t>> out(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    if (lists.is_null(r)) continue;
    const auto [first, last] = lists.list_range(r);
    out[size_t(r)] = last - first;
  }
  return Column::from(std::move(out));
}

Column list_items_at(const Column& lists, int64_t i) {
  const Column& items = lists.child();
  ColumnBuilder b(items.type(), lists.size());
  for (int64_t r = 0; r < lists.size(); ++r) {
    if (lists.is_null(r)) {
      b.append_null();
      continue;
    }
    const auto [first, last] = lists.list_range(r);
    const int64_t at = i >= 0 ? first + i : last + i;
    if (at < first || at >= last) {
      b.append_null();
    } else {
      b.append_from(items, at);
    }
  }
  return b.finish();
}

}  // namespace ember
