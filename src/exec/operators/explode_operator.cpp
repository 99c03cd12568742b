// Explode: the row of every item, then the other columns gathered by those rows.
#include "exec/operators/explode_operator.h"

#include <vector>

#include "core/column_take.h"

namespace ember {

Batch ExplodeOperator::execute(const Batch& input) const {
  const Column& lists = input.column(column_);
  std::vector<int64_t> rows;   // input row of each output row
  std::vector<int64_t> items;  // item (row of lists.child()) of each output row
  for (int64_t r = 0; r < lists.size(); ++r) {
    if (lists.is_null(r)) continue;
    const auto [first, last] = lists.list_range(r);
    for (int64_t j = first; j < last; ++j) {
      rows.push_back(r);
      items.push_back(j);
    }
  }
  std::vector<Column> cols;
  cols.reserve(static_cast<size_t>(input.num_columns()));
  for (int c = 0; c < input.num_columns(); ++c) {
    if (c != column_) {
      cols.push_back(take_rows(input.column(c), rows));
    } else if (!items.empty() && items.back() - items.front() + 1 == int64_t(items.size())) {
      // The items of the rows kept lie side by side (no null list holds any): the child as it is.
      cols.push_back(lists.child().slice(items.front(), int64_t(items.size())));
    } else {
      cols.push_back(take_rows(lists.child(), items));
    }
  }
  if (cols.empty()) return Batch::empty_with_rows(static_cast<int64_t>(rows.size()));
  return Batch(output_, std::move(cols));
}

}  // namespace ember
