// Row gathering: the column itself when the rows are all of it in order, a plain copy loop for
// fixed-width columns without nulls, a builder otherwise.
#include "exec/relational/column_gather.h"

#include <algorithm>

#include "core/buffer_access.h"

namespace ember {

namespace {

template <class T>
Column gather_fixed(const Column& c, const std::vector<int64_t>& rows) {
  const auto n = static_cast<int64_t>(rows.size());
  std::shared_ptr<Buffer> values =
      detail::BufferAccess::allocate_uninitialized(n * static_cast<int64_t>(sizeof(T)));
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

/// Row `r` of the concatenation as (part, row in it): parts of equal size but the last (a
/// partition's morsels) divide; others search the starts.
class PartIndex {
 public:
  explicit PartIndex(const std::vector<Batch>& parts) {
    for (const Batch& b : parts) {
      starts_.push_back(total_);
      total_ += b.num_rows();
    }
    size_ = parts.front().num_rows();
    for (size_t p = 0; p + 1 < parts.size() && size_ > 0; ++p)
      if (parts[p].num_rows() != size_) size_ = 0;
  }
  std::pair<size_t, int64_t> at(int64_t r) const {
    if (size_ > 0) {
      const auto p = std::min(static_cast<size_t>(r / size_), starts_.size() - 1);
      return {p, r - starts_[p]};
    }
    const auto p = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), r) -
                                       starts_.begin() - 1);
    return {p, r - starts_[p]};
  }

 private:
  std::vector<int64_t> starts_;
  int64_t total_ = 0;
  int64_t size_ = 0;  ///< every part's rows but the last's, or 0 when they differ
};

template <class T>
Column gather_fixed_parts(const std::vector<Column>& cols, const PartIndex& index,
                          const std::vector<int64_t>& rows) {
  const auto n = static_cast<int64_t>(rows.size());
  std::shared_ptr<Buffer> values =
      detail::BufferAccess::allocate_uninitialized(n * static_cast<int64_t>(sizeof(T)));
  T* out = reinterpret_cast<T*>(detail::BufferAccess::mutable_data(*values));
  std::vector<const T*> from;
  for (const Column& c : cols) from.push_back(c.values<T>());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto [p, r] = index.at(rows[i]);
    out[i] = from[p][r];
  }
  return Column::from_buffers(cols.front().type(), n, 0, nullptr, std::move(values));
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

Batch gather(const std::vector<Batch>& parts, const std::vector<int64_t>& rows) {
  if (parts.size() == 1) return gather(parts.front(), rows);
  const PartIndex index(parts);
  bool every_row = true;  // no row number is negative (a null)
  for (int64_t r : rows) every_row = every_row && r >= 0;
  std::vector<Column> out;
  for (int c = 0; c < parts.front().num_columns(); ++c) {
    std::vector<Column> pieces;
    bool plain = every_row;  // and every piece without nulls
    for (const Batch& b : parts) {
      pieces.push_back(b.column(c));
      plain = plain && pieces.back().null_count() == 0;
    }
    const TypeId id = pieces.front().type().id();
    if (plain && id == TypeId::Int64)
      out.push_back(gather_fixed_parts<int64_t>(pieces, index, rows));
    else if (plain && id == TypeId::Float64)
      out.push_back(gather_fixed_parts<double>(pieces, index, rows));
    else
      out.push_back(gather(Column::concat(pieces), rows));
  }
  if (out.empty()) return Batch::empty_with_rows(static_cast<int64_t>(rows.size()));
  return Batch(parts.front().schema(), std::move(out));
}

}  // namespace ember
