// take_rows: fixed-width and text columns are gathered straight into their buffers (values,
// offsets and characters, and the validity of the rows taken); other types row by row.
#include "core/column_take.h"

#include <cstring>
#include <limits>
#include <string>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "core/short_copy.h"
#include "ember/error.h"

namespace ember {

namespace {

// The validity of the rows taken, and how many of them are null; nullptr when none is.
std::shared_ptr<Buffer> taken_validity(const Column& c, const std::vector<int64_t>& rows,
                                       int64_t* nulls) {
  *nulls = 0;
  if (c.null_count() == 0) return nullptr;
  const int64_t n = static_cast<int64_t>(rows.size());
  auto bits = Buffer::allocate(bitmap::bytes_for(n));
  uint8_t* b = detail::BufferAccess::mutable_data(*bits);
  for (int64_t i = 0; i < n; ++i) {
    if (c.is_null(rows[size_t(i)])) {
      ++*nulls;
    } else {
      set_bit(b, i);
    }
  }
  return *nulls ? bits : nullptr;
}

Column take_fixed(const Column& c, const std::vector<int64_t>& rows, int w) {
  const int64_t n = static_cast<int64_t>(rows.size());
  int64_t nulls = 0;
  auto validity = taken_validity(c, rows, &nulls);
  auto out = detail::BufferAccess::allocate_uninitialized(n * w);
  uint8_t* d = detail::BufferAccess::mutable_data(*out);
  const uint8_t* src = c.values_buffer()->data() + c.offset() * w;
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(d + i * w, src + rows[size_t(i)] * w, static_cast<size_t>(w));
  return Column::from_buffers(c.type(), n, nulls, std::move(validity), std::move(out));
}

Column take_text(const Column& c, const std::vector<int64_t>& rows) {
  const int64_t n = static_cast<int64_t>(rows.size());
  int64_t nulls = 0;
  auto validity = taken_validity(c, rows, &nulls);
  const int32_t* o = c.offsets();
  const char* chars = c.chars();
  auto offsets = detail::BufferAccess::allocate_uninitialized((n + 1) * 4);
  auto* out_o = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets));
  int64_t total = 0;
  out_o[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = rows[size_t(i)];
    total += c.is_null(r) ? 0 : o[r + 1] - o[r];
    if (total > std::numeric_limits<int32_t>::max()) {
      throw InvalidArgument("utf8 column would hold " + std::to_string(total) +
                            " bytes of text; one column holds at most 2 GiB (use smaller batches)");
    }
    out_o[i + 1] = static_cast<int32_t>(total);
  }
  auto data = detail::BufferAccess::allocate_uninitialized(total);
  char* d = reinterpret_cast<char*>(detail::BufferAccess::mutable_data(*data));
  for (int64_t i = 0; i < n; ++i) {
    const auto len = static_cast<size_t>(out_o[i + 1] - out_o[i]);
    const char* s = chars + o[rows[size_t(i)]];
    copy_short(d + out_o[i], s, len);
  }
  return Column::from_buffers(c.type(), n, nulls, std::move(validity), std::move(offsets),
                              std::move(data));
}

}  // namespace

Column take_rows(const Column& c, const std::vector<int64_t>& rows) {
  const int w = c.type().byte_width();
  if (w > 0) return take_fixed(c, rows, w);
  if (c.type().id() == TypeId::Utf8 || c.type().id() == TypeId::Binary) return take_text(c, rows);
  ColumnBuilder b(c.type(), static_cast<int64_t>(rows.size()));
  for (int64_t r : rows) b.append_from(c, r);
  return b.finish();
}

}  // namespace ember
