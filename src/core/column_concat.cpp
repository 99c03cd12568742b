// Column::concat: copies columns of one type (slices included) into fresh contiguous buffers,
// or joins consecutive slices of the same buffers without a copy.
#include <limits>
#include <optional>
#include <string>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "ember/column.h"

namespace ember {

namespace {

// Validity of the concatenation, or nullptr when no part has a null.
std::shared_ptr<Buffer> concat_validity(const std::vector<Column>& parts, int64_t total) {
  bool any_null = false;
  for (const Column& p : parts) any_null |= p.null_count() > 0;
  if (!any_null) return nullptr;
  auto out = Buffer::allocate(bitmap::bytes_for(total));
  int64_t pos = 0;
  for (const Column& p : parts) {
    if (p.validity_bits()) {
      bitmap::copy_into(p.validity_bits(), p.offset(), detail::BufferAccess::mutable_data(*out),
                        pos, p.size());
    } else {
      bitmap::set_range(detail::BufferAccess::mutable_data(*out), pos, p.size());
    }
    pos += p.size();
  }
  return out;
}

std::shared_ptr<Buffer> concat_fixed(const std::vector<Column>& parts, int64_t total, int width) {
  auto out = detail::BufferAccess::allocate_uninitialized(total * width);
  uint8_t* d = detail::BufferAccess::mutable_data(*out);
  for (const Column& p : parts) {
    if (p.size() == 0) continue;
    std::memcpy(d, p.values_buffer()->data() + p.offset() * width,
                static_cast<size_t>(p.size()) * width);
    d += p.size() * width;
  }
  return out;
}

// Lists: offsets rebased as for strings, and the parts' item ranges concatenated.
Column concat_lists(const DataType& type, const std::vector<Column>& parts, int64_t total,
                    std::shared_ptr<Buffer> validity, int64_t null_count) {
  std::vector<Column> items;
  std::shared_ptr<Buffer> offsets;
  if (type.has_list_offsets())
    offsets = detail::BufferAccess::allocate_uninitialized((total + 1) * 4);
  int32_t* o =
      offsets ? reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets)) : nullptr;
  int64_t row = 0, pos = 0;
  for (const Column& p : parts) {
    if (p.size() == 0) continue;
    const int64_t first = p.list_range(0).first, last = p.list_range(p.size() - 1).second;
    if (o) {
      for (int64_t i = 0; i < p.size(); ++i)
        o[row + i] = static_cast<int32_t>(p.list_range(i).first - first + pos);
    }
    items.push_back(p.child().slice(first, last - first));
    pos += last - first;
    row += p.size();
  }
  if (pos > std::numeric_limits<int32_t>::max())
    throw InvalidArgument("concatenated list column would hold more than 2^31-1 items");
  if (o) o[total] = static_cast<int32_t>(pos);
  return Column::nested(type, total, null_count, std::move(validity), std::move(offsets),
                        Column::concat(items));
}

// Structs: each field's rows of every part, concatenated.
Column concat_structs(const DataType& type, const std::vector<Column>& parts, int64_t total,
                      std::shared_ptr<Buffer> validity, int64_t null_count) {
  std::vector<Column> children;
  for (size_t f = 0; f < type.fields().size(); ++f) {
    std::vector<Column> pieces;
    for (const Column& p : parts) pieces.push_back(p.children()[f].slice(p.offset(), p.size()));
    children.push_back(Column::concat(pieces));
  }
  return Column::nested(type, total, null_count, std::move(validity), std::move(children));
}

std::shared_ptr<Buffer> concat_bools(const std::vector<Column>& parts, int64_t total) {
  auto out = Buffer::allocate(bitmap::bytes_for(total));
  int64_t pos = 0;
  for (const Column& p : parts) {
    if (p.size() == 0) continue;
    bitmap::copy_into(p.bool_bits(), p.offset(), detail::BufferAccess::mutable_data(*out), pos,
                      p.size());
    pos += p.size();
  }
  return out;
}

Column concat_utf8(const DataType& type, const std::vector<Column>& parts, int64_t total,
                   std::shared_ptr<Buffer> validity, int64_t null_count) {
  int64_t chars = 0;
  for (const Column& p : parts) {
    if (p.size() > 0) chars += p.offsets()[p.size()] - p.offsets()[0];
  }
  if (chars > std::numeric_limits<int32_t>::max()) {
    throw InvalidArgument("concatenated utf8 column would hold " + std::to_string(chars) +
                          " bytes of text; one column holds at most 2 GiB");
  }
  auto offsets = detail::BufferAccess::allocate_uninitialized((total + 1) * 4);
  auto data = detail::BufferAccess::allocate_uninitialized(chars);
  int32_t* o = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets));
  char* c = reinterpret_cast<char*>(detail::BufferAccess::mutable_data(*data));
  int64_t row = 0;
  int32_t pos = 0;
  for (const Column& p : parts) {
    if (p.size() == 0) continue;
    const int32_t* src = p.offsets();
    // Rebase the part's offsets so its first string starts where the previous part ended.
    const int32_t shift = pos - src[0];
    for (int64_t i = 0; i < p.size(); ++i) o[row + i] = src[i] + shift;
    const int32_t len = src[p.size()] - src[0];
    std::memcpy(c + pos, p.chars() + src[0], static_cast<size_t>(len));
    pos += len;
    row += p.size();
  }
  o[total] = pos;
  return Column::from_buffers(type, total, null_count, std::move(validity), std::move(offsets),
                              std::move(data));
}

/// The parts as one zero-copy slice when each continues the one before inside the same buffers
/// (the batches a source cut from one in-memory column, say); nullopt otherwise. Flat types
/// only. A part without a validity bitmap has no nulls, so every part must share the first's
/// bitmap or every part lack one.
std::optional<Column> adjacent_slices(const std::vector<Column>& parts, const DataType& type,
                                      int64_t total, int64_t null_count) {
  if (type.is_nested()) return std::nullopt;
  const Column& first = parts[0];
  for (size_t k = 1; k < parts.size(); ++k) {
    const Column& p = parts[k];
    if (p.values_buffer() != first.values_buffer() || p.data_buffer() != first.data_buffer() ||
        p.validity_buffer() != first.validity_buffer() ||
        p.offset() != parts[k - 1].offset() + parts[k - 1].size())
      return std::nullopt;
  }
  return Column::from_buffers(type, total, null_count, first.validity_buffer(),
                              first.values_buffer(), first.data_buffer(), first.offset());
}

}  // namespace

Column Column::concat(const std::vector<Column>& parts) {
  if (parts.empty()) return Column();
  const DataType type = parts[0].type();
  int64_t total = 0;
  int64_t null_count = 0;
  for (const Column& p : parts) {
    if (p.type() != type) {
      throw InvalidArgument("cannot concatenate a " + p.type().to_string() + " column with a " +
                            type.to_string() + " column");
    }
    total += p.size();
    null_count += p.null_count();
  }
  // Columns are immutable, so one part can be shared as is.
  if (parts.size() == 1) return parts[0];
  if (type.id() == TypeId::Null) return nulls(type, total);
  if (total == 0) return parts[0];
  if (auto joined = adjacent_slices(parts, type, total, null_count)) return *joined;
  auto validity = concat_validity(parts, total);
  switch (type.id()) {
    case TypeId::Boolean:
      return from_buffers(type, total, null_count, std::move(validity), concat_bools(parts, total));
    case TypeId::Int64:
    case TypeId::Float64:
    case TypeId::Int32:
    case TypeId::Float32:
    case TypeId::Timestamp:
    case TypeId::Date32:
      return from_buffers(type, total, null_count, std::move(validity),
                          concat_fixed(parts, total, type.byte_width()));
    case TypeId::Utf8:
    case TypeId::Binary:
      return concat_utf8(type, parts, total, std::move(validity), null_count);
    case TypeId::List:
    case TypeId::Map:
    case TypeId::FixedSizeList:
      return concat_lists(type, parts, total, std::move(validity), null_count);
    case TypeId::Struct:
      return concat_structs(type, parts, total, std::move(validity), null_count);
    default:
      throw InvalidArgument("cannot concatenate " + type.to_string() + " columns");
  }
}

}  // namespace ember
