// Column::filter: gathers the rows a Boolean mask selects, a 64-row word at a time.
#include <bit>
#include <string>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "core/fixed_width_compress.h"
#include "ember/column.h"

namespace ember {

namespace {

// The rows a mask selects: its value bits from bit `start` (null = false). A mask without nulls
// is used in place; otherwise value AND validity goes into `owned`, at bit 0.
struct Selection {
  const uint8_t* bits;
  int64_t start;
  std::shared_ptr<Buffer> owned;
};

Selection selection_of(const Column& mask) {
  if (!mask.validity_bits()) return {mask.bool_bits(), mask.offset(), nullptr};
  auto owned = bitmap::and_of(mask.bool_bits(), mask.offset(), mask.validity_bits(), mask.offset(),
                              mask.size());
  return {owned->data(), 0, owned};
}

// Calls visit(row) for every selected row, in order; whole-word runs go to visit_run.
template <class Visit, class VisitRun>
void for_each_selected(const Selection& sel, int64_t length, Visit visit, VisitRun visit_run) {
  const int64_t words = bitmap::words_for(length);
  for (int64_t w = 0; w < words; ++w) {
    uint64_t word = bitmap::read_word(sel.bits, sel.start, length, w);
    const int64_t base = w * 64;
    if (word == ~uint64_t(0)) {
      visit_run(base, 64);
      continue;
    }
    while (word) {
      visit(base + std::countr_zero(word));
      word &= word - 1;
    }
  }
}

std::shared_ptr<Buffer> gather_validity(const Column& c, const Selection& sel, int64_t n) {
  if (!c.validity_bits()) return nullptr;
  auto out = Buffer::allocate(bitmap::bytes_for(n));
  uint8_t* d = detail::BufferAccess::mutable_data(*out);
  const uint8_t* v = c.validity_bits();
  const int64_t off = c.offset();
  int64_t k = 0;
  for_each_selected(
      sel, c.size(),
      [&](int64_t i) {
        if (get_bit(v, off + i)) set_bit(d, k);
        ++k;
      },
      [&](int64_t base, int64_t len) {
        bitmap::copy_into(v, off + base, d, k, len);
        k += len;
      });
  return out;
}

std::shared_ptr<Buffer> gather_fixed(const Column& c, const Selection& sel, int64_t n) {
  if (c.type().byte_width() == 4) {
    auto out = detail::BufferAccess::allocate_uninitialized(n * 4);
    auto* d = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*out));
    const int32_t* v = c.values<int32_t>();
    int64_t k = 0;
    for_each_selected(
        sel, c.size(), [&](int64_t i) { d[k++] = v[i]; },
        [&](int64_t base, int64_t len) {
          std::memcpy(d + k, v + base, static_cast<size_t>(len) * 4);
          k += len;
        });
    return out;
  }
  auto out = detail::BufferAccess::allocate_uninitialized(n * 8);
  compress_fixed_width(c.values<int64_t>(), sel.bits, sel.start, c.size(),
                       reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*out)));
  return out;
}

std::shared_ptr<Buffer> gather_bools(const Column& c, const Selection& sel, int64_t n) {
  auto out = Buffer::allocate(bitmap::bytes_for(n));
  uint8_t* d = detail::BufferAccess::mutable_data(*out);
  const uint8_t* s = c.bool_bits();
  const int64_t off = c.offset();
  int64_t k = 0;
  for_each_selected(
      sel, c.size(),
      [&](int64_t i) {
        if (get_bit(s, off + i)) set_bit(d, k);
        ++k;
      },
      [&](int64_t base, int64_t len) {
        bitmap::copy_into(s, off + base, d, k, len);
        k += len;
      });
  return out;
}

// Lists keep the items of the selected rows: the row selection widened to item ranges.
Column gather_list(const Column& c, const Selection& sel, int64_t n, std::shared_ptr<Buffer> valid,
                   int64_t null_count) {
  const Column& items = c.child();
  auto item_bits = Buffer::allocate(bitmap::bytes_for(items.size()));
  uint8_t* ib = detail::BufferAccess::mutable_data(*item_bits);
  std::shared_ptr<Buffer> offsets;
  if (c.type().has_list_offsets())
    offsets = detail::BufferAccess::allocate_uninitialized((n + 1) * 4);
  int32_t* o =
      offsets ? reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets)) : nullptr;
  int64_t k = 0, pos = 0;
  auto keep = [&](int64_t i) {
    const auto [first, last] = c.list_range(i);
    bitmap::set_range(ib, first, last - first);
    if (o) o[k] = static_cast<int32_t>(pos);
    pos += last - first;
    ++k;
  };
  for_each_selected(sel, c.size(), keep, [&](int64_t base, int64_t len) {
    for (int64_t j = 0; j < len; ++j) keep(base + j);
  });
  if (o) o[n] = static_cast<int32_t>(pos);
  const Column mask = Column::from_buffers(boolean(), items.size(), 0, nullptr, item_bits);
  return Column::nested(c.type(), n, null_count, std::move(valid), std::move(offsets),
                        items.filter(mask));
}

Column gather_utf8(const Column& c, const Selection& sel, int64_t n, std::shared_ptr<Buffer> valid,
                   int64_t null_count) {
  const int32_t* so = c.offsets();
  int64_t chars = 0;
  auto count = [&](int64_t i) { chars += so[i + 1] - so[i]; };
  for_each_selected(sel, c.size(), count,
                    [&](int64_t base, int64_t len) { chars += so[base + len] - so[base]; });
  auto offsets = detail::BufferAccess::allocate_uninitialized((n + 1) * 4);
  auto data = detail::BufferAccess::allocate_uninitialized(chars);
  int32_t* o = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets));
  char* d = reinterpret_cast<char*>(detail::BufferAccess::mutable_data(*data));
  const char* s = c.chars();
  int64_t k = 0;
  int32_t pos = 0;
  auto copy_run = [&](int64_t base, int64_t len) {
    const int32_t shift = pos - so[base];
    for (int64_t j = 0; j < len; ++j) o[k + j] = so[base + j] + shift;
    const int32_t bytes = so[base + len] - so[base];
    std::memcpy(d + pos, s + so[base], static_cast<size_t>(bytes));
    pos += bytes;
    k += len;
  };
  for_each_selected(
      sel, c.size(), [&](int64_t i) { copy_run(i, 1); }, copy_run);
  o[n] = pos;
  return Column::from_buffers(c.type(), n, null_count, std::move(valid), std::move(offsets),
                              std::move(data));
}

}  // namespace

Column Column::filter(const Column& mask) const {
  if (mask.type().id() != TypeId::Boolean) {
    throw InvalidArgument("filter mask must be bool, got " + mask.type().to_string());
  }
  if (mask.size() != length_) {
    throw InvalidArgument("filter mask has " + std::to_string(mask.size()) +
                          " rows, the column has " + std::to_string(length_));
  }
  if (length_ == 0) return *this;
  const Selection sel = selection_of(mask);
  const int64_t n = bitmap::count_set(sel.bits, sel.start, length_);
  // Fast paths: everything kept is a zero-copy share, nothing kept an empty slice.
  if (n == length_) return *this;
  if (n == 0) return slice(0, 0);
  if (type_.id() == TypeId::Null) return nulls(type_, n);
  auto validity = gather_validity(*this, sel, n);
  const int64_t nulls = validity ? n - bitmap::count_set(validity->data(), 0, n) : 0;
  switch (type_.id()) {
    case TypeId::Boolean:
      return from_buffers(type_, n, nulls, std::move(validity), gather_bools(*this, sel, n));
    case TypeId::Int64:
    case TypeId::Float64:
    case TypeId::Int32:
    case TypeId::Float32:
    case TypeId::Timestamp:
    case TypeId::Date32:
      return from_buffers(type_, n, nulls, std::move(validity), gather_fixed(*this, sel, n));
    case TypeId::Utf8:
    case TypeId::Binary:
      return gather_utf8(*this, sel, n, std::move(validity), nulls);
    case TypeId::List:
    case TypeId::Map:
    case TypeId::FixedSizeList:
      return gather_list(*this, sel, n, std::move(validity), nulls);
    case TypeId::Struct: {
      std::vector<Column> children;
      for (const Column& f : *children_) children.push_back(f.slice(offset_, length_).filter(mask));
      return nested(type_, n, nulls, std::move(validity), std::move(children));
    }
    default:
      throw InvalidArgument("cannot filter a " + type_.to_string() + " column");
  }
}

}  // namespace ember
