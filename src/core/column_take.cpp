// take_rows: fixed-width columns without nulls are gathered directly, the rest row by row.
#include "core/column_take.h"

#include <cstring>

#include "core/buffer_access.h"

namespace ember {

Column take_rows(const Column& c, const std::vector<int64_t>& rows) {
  const int64_t n = static_cast<int64_t>(rows.size());
  const int w = c.type().byte_width();
  if (w > 0 && c.null_count() == 0) {
    auto out = detail::BufferAccess::allocate_uninitialized(n * w);
    uint8_t* d = detail::BufferAccess::mutable_data(*out);
    const uint8_t* src = c.values_buffer()->data() + c.offset() * w;
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(d + i * w, src + rows[size_t(i)] * w, static_cast<size_t>(w));
    return Column::from_buffers(c.type(), n, 0, nullptr, std::move(out));
  }
  ColumnBuilder b(c.type(), n);
  for (int64_t r : rows) b.append_from(c, r);
  return b.finish();
}

}  // namespace ember
