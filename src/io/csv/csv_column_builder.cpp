// CsvColumnBuilder: buffer sizing and growth, kept out of line because they are rare.
#include "io/csv/csv_column_builder.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/bitmap.h"
#include "core/buffer_access.h"

namespace ember {

namespace {

// A bigger buffer holding the first `used` bytes of `old`; the rest is zero-filled only when
// the layout needs it (bitmaps, where appends set bits rather than store bytes).
std::shared_ptr<Buffer> regrow(const std::shared_ptr<Buffer>& old, int64_t used, int64_t bytes,
                               bool zeroed) {
  auto next =
      zeroed ? Buffer::allocate(bytes) : detail::BufferAccess::allocate_uninitialized(bytes);
  if (old && used > 0)
    std::memcpy(detail::BufferAccess::mutable_data(*next), old->data(), static_cast<size_t>(used));
  return next;
}

}  // namespace

CsvColumnBuilder::CsvColumnBuilder(DataType type, int64_t capacity) : type_(std::move(type)) {
  row_capacity_ = std::max<int64_t>(capacity, 1);
  values_ = regrow(nullptr, 0, value_bytes(row_capacity_), type_.id() == TypeId::Boolean);
  values_data_ = detail::BufferAccess::mutable_data(*values_);
  if (type_.id() == TypeId::Utf8) {
    offsets()[0] = 0;
    chars_capacity_ = std::max<int64_t>(64, row_capacity_ * 8);
    chars_ = detail::BufferAccess::allocate_uninitialized(chars_capacity_);
    chars_data_ = reinterpret_cast<char*>(detail::BufferAccess::mutable_data(*chars_));
  }
}

int64_t CsvColumnBuilder::value_bytes(int64_t rows) const {
  switch (type_.id()) {
    case TypeId::Boolean:
      return bitmap::bytes_for(rows);
    case TypeId::Utf8:
      return (rows + 1) * 4;
    default:
      return rows * 8;
  }
}

void CsvColumnBuilder::grow_rows() {
  const int64_t cap = row_capacity_ * 2;
  const int64_t used = type_.id() == TypeId::Boolean ? bitmap::bytes_for(length_)
                       : type_.id() == TypeId::Utf8  ? (length_ + 1) * 4
                                                     : length_ * 8;
  values_ = regrow(values_, used, value_bytes(cap), type_.id() == TypeId::Boolean);
  values_data_ = detail::BufferAccess::mutable_data(*values_);
  if (validity_) {
    validity_ = regrow(validity_, bitmap::bytes_for(length_), bitmap::bytes_for(cap), true);
  }
  row_capacity_ = cap;
}

void CsvColumnBuilder::grow_chars_for(int64_t needed, int64_t rows) {
  // Extrapolated to the reserved rows with an eighth to spare; never below what is needed.
  int64_t estimate = needed;
  if (rows > 0 && rows < row_capacity_) {
    const double per_row = static_cast<double>(needed) / static_cast<double>(rows);
    estimate = static_cast<int64_t>(per_row * 1.125 * static_cast<double>(row_capacity_));
  }
  estimate = std::min<int64_t>(estimate, std::numeric_limits<int32_t>::max());
  // Below plain doubling the estimate saves nothing; grow_chars doubles on its own.
  grow_chars(estimate > chars_capacity_ * 2 ? std::max(needed, estimate) : needed);
}

void CsvColumnBuilder::grow_chars(int64_t needed) {
  if (needed > std::numeric_limits<int32_t>::max()) {
    throw InvalidArgument("utf8 column would hold " + std::to_string(needed) +
                          " bytes of text; one column holds at most 2 GiB (use smaller batches)");
  }
  // Capped at the limit, so any later overflow also comes through here and is rejected.
  const int64_t cap =
      std::min<int64_t>(std::max(needed, chars_capacity_ * 2), std::numeric_limits<int32_t>::max());
  chars_ = regrow(chars_, chars_used_, cap, false);
  chars_data_ = reinterpret_cast<char*>(detail::BufferAccess::mutable_data(*chars_));
  chars_capacity_ = cap;
}

void CsvColumnBuilder::start_validity() {
  validity_ = Buffer::allocate(bitmap::bytes_for(row_capacity_));
  bitmap::set_range(detail::BufferAccess::mutable_data(*validity_), 0, length_);
}

Column CsvColumnBuilder::finish() {
  return Column::from_buffers(type_, length_, null_count_, std::move(validity_), std::move(values_),
                              std::move(chars_));
}

}  // namespace ember
