// Row gathering: a plain copy loop for fixed-width columns without nulls, a builder otherwise.
#include "exec/relational/column_gather.h"

namespace ember {

namespace {

template <class T>
Column gather_fixed(const Column& c, const std::vector<int64_t>& rows) {
  std::vector<T> out(rows.size());
  const T* v = c.values<T>();
  for (size_t i = 0; i < rows.size(); ++i) out[i] = v[rows[i]];
  return Column::from(std::move(out));
}

}  // namespace

Column gather(const Column& c, const std::vector<int64_t>& rows) {
  bool any_missing = false;
  for (int64_t r : rows) any_missing = any_missing || r < 0;
  if (!any_missing && c.null_count() == 0) {
    if (c.type().id() == TypeId::Int64) return gather_fixed<int64_t>(c, rows);
    if (c.type().id() == TypeId::Float64) return gather_fixed<double>(c, rows);
  }
  ColumnBuilder b(c.type(), static_cast<int64_t>(rows.size()));
  for (int64_t r : rows) {
    if (r < 0)
      b.append_null();
    else
      b.append_from(c, r);
  }
  return b.finish();
}

Batch gather(const Batch& b, const std::vector<int64_t>& rows) {
  std::vector<Column> cols;
  for (const Column& c : b.columns()) cols.push_back(gather(c, rows));
  if (cols.empty()) return Batch::empty_with_rows(static_cast<int64_t>(rows.size()));
  return Batch(b.schema(), std::move(cols));
}

}  // namespace ember
