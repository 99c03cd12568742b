// Arrow's view types read into ember's layout (see arrow_batch_decoder.h). Utf8View and
// BinaryView hold a 16-byte view per value: an int32 length, then up to 12 bytes inline, or a
// 4-byte prefix, the index of one of the column's variadic data buffers and an offset into it.
// ListView and LargeListView hold an offset and a size per list into items that may be shared
// or out of order. Both are copied into offsets over contiguous data, every view checked.
#include <climits>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "core/column_take.h"
#include "io/arrow/arrow_batch_decoder.h"

namespace ember::arrow_ipc {

namespace {

int32_t load32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

int64_t load_offset(const uint8_t* p, int bytes) {
  if (bytes == 4) return load32(p);
  int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

bool valid(const std::shared_ptr<Buffer>& validity, int64_t i) {
  return !validity || get_bit(validity->data(), i);
}

using Data = std::vector<std::pair<const uint8_t*, int64_t>>;

/// Where the value of `view` lies (its bytes inline or in one of `data`), checked.
const uint8_t* view_bytes(const uint8_t* view, const Data& data, const std::string& column) {
  const int32_t length = load32(view);
  if (length <= 12) return view + 4;
  const int32_t index = load32(view + 8), offset = load32(view + 12);
  const auto bad = [&](const std::string& what) {
    return std::runtime_error("column '" + column + "': a view " + what);
  };
  if (index < 0 || static_cast<size_t>(index) >= data.size())
    throw bad("into data buffer " + std::to_string(index) + " of " + std::to_string(data.size()));
  const auto& [p, size] = data[static_cast<size_t>(index)];
  if (offset < 0 || length > size - offset)
    throw bad("of " + std::to_string(length) + " bytes at " + std::to_string(offset) +
              " past its data buffer of " + std::to_string(size));
  if (std::memcmp(view + 4, p + offset, 4) != 0) throw bad("whose prefix differs from its data");
  return p + offset;
}

}  // namespace

// Validity (read already), the views, then variadicBufferCounts' next count of data buffers.
Column BatchDecoder::views(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity) {
  auto [vp, vsize] = buffer();
  if (vsize < n * 16) throw std::runtime_error("views buffer too small");
  const int64_t count = source_->variadic_count(f.name);
  Data data;
  for (int64_t k = 0; k < count; ++k) data.push_back(buffer());
  // The lengths first (each view checked), then the bytes copied after one another.
  auto offsets = Buffer::allocate((n + 1) * 4);
  auto* o = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets));
  o[0] = 0;
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (valid(validity, i)) {  // a null slot's view may hold anything
      const int32_t length = load32(vp + i * 16);
      if (length < 0) throw std::runtime_error("column '" + f.name + "': a negative view length");
      view_bytes(vp + i * 16, data, f.name);
      total += length;
      if (total > INT32_MAX)
        throw std::runtime_error("column '" + f.name + "': a batch holds more than the 2 GiB " +
                                 "ember's " + f.type.to_string() + " holds");
    }
    o[i + 1] = static_cast<int32_t>(total);
  }
  auto bytes = Buffer::allocate(total);
  uint8_t* out = detail::BufferAccess::mutable_data(*bytes);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t length = o[i + 1] - o[i];
    if (length > 0) std::memcpy(out + o[i], view_bytes(vp + i * 16, data, f.name), size_t(length));
  }
  return Column::from_buffers(f.type, n, -1, std::move(validity), std::move(offsets),
                              std::move(bytes));
}

// Validity (read already), offsets, sizes (of stored_bytes each), then the items: each valid
// list's range of items checked and taken in row order (a slice when they already follow on).
Column BatchDecoder::list_views(const ArrowField& f, int64_t n, std::shared_ptr<Buffer> validity) {
  const int w = f.stored_bytes;
  auto [op, osize] = buffer();
  auto [sp, ssize] = buffer();
  if (osize < n * w || ssize < n * w) throw std::runtime_error("list view buffers too small");
  Column items = column(f.children[0]);
  auto offsets = Buffer::allocate((n + 1) * 4);
  auto* o = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets));
  o[0] = 0;
  std::vector<std::pair<int64_t, int64_t>> ranges;  // (offset, size) of each non-empty list
  int64_t total = 0;
  bool follow_on = true;  // each range starts where the one before ended
  for (int64_t i = 0; i < n; ++i) {
    const int64_t offset = load_offset(op + i * w, w), size = load_offset(sp + i * w, w);
    if (valid(validity, i) && size != 0) {
      if (offset < 0 || size < 0 || size > items.size() - offset)
        throw std::runtime_error("column '" + f.name + "': a list view of " + std::to_string(size) +
                                 " items at " + std::to_string(offset) + " past its " +
                                 std::to_string(items.size()) + " items");
      if (!ranges.empty() && ranges.back().first + ranges.back().second != offset)
        follow_on = false;
      ranges.emplace_back(offset, size);
      total += size;
      if (total > INT32_MAX)
        throw std::runtime_error("column '" + f.name + "': a batch holds more than " +
                                 std::to_string(INT32_MAX) + " items in one column, past what " +
                                 "ember's " + f.type.to_string() + " holds");
    }
    o[i + 1] = static_cast<int32_t>(total);
  }
  if (ranges.empty()) {
    items = items.slice(0, 0);
  } else if (follow_on) {
    items = items.slice(ranges.front().first, total);
  } else {
    std::vector<int64_t> rows;
    rows.reserve(static_cast<size_t>(total));
    for (const auto& [offset, size] : ranges)
      for (int64_t k = 0; k < size; ++k) rows.push_back(offset + k);
    items = take_rows(items, rows);
  }
  return Column::nested(f.type, n, -1, std::move(validity), std::move(offsets), std::move(items));
}

}  // namespace ember::arrow_ipc
