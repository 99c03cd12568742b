// Row gathering: the column itself when the rows are all of it in order, a plain copy loop for
// fixed-width columns without nulls, a builder otherwise.
#include "exec/relational/column_gather.h"

#include "core/buffer_access.h"

namespace ember {

namespace {

template <class T>
Column gather_fixed(const Column& c, const std::vector<int64_t>& rows) {
  const auto n = static_cast<int64_t>(rows.size());
  std::shared_ptr<Buffer> values =
      Buffer::allocate_uninitialized(n * static_cast<int64_t>(sizeof(T)));
  T* out = reinterpret_cast<T*>(detail::BufferAccess::mutable_data(*values));
  const T* v = c.values<T>();
  for (size_t i = 0; i < rows.size(); ++i) out[i] = v[rows[i]];
  return Column::from_buffers(c.type(), n, 0, nullptr, std::move(values));
}

/// True when `rows` is 0, 1, ..., size - 1 (an inner join whose rows each matched once).
bool is_identity(const std::vector<int64_t>& rows, int64_t size) {
  if (static_cast<int64_t>(rows.size()) != size) return false;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i] != static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

Column gather(const Column& c, const std::vector<int64_t>& rows) {
  if (is_identity(rows, c.size())) return c;  // columns are immutable: share it
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
