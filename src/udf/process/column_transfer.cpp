// Column layout in shared regions. A sliced column keeps its sub-byte bit offset (0..7) so that
// bitmaps are copied bytewise; utf8 and list offsets are rebased so only the referenced
// characters or items move. A list's (or map's) `data` buffer holds the ColumnDesc of its
// items, whose buffers lie in the same region: the tree travels without changing the control
// messages. A struct's `values` buffer holds its type (data_type_codec.h: the field names and
// types) and its `data` buffer one ColumnDesc per field, in the type's order.
#include "udf/process/column_transfer.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "core/buffer_access.h"
#include "ember/error.h"
#include "udf/data_type_codec.h"

namespace ember::process {

namespace {

constexpr uint64_t kAlign = 64;

uint64_t padded(uint64_t bytes) {
  return (std::max<uint64_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
}
int64_t bytes_for_bits(int64_t bits) { return (bits + 7) / 8; }

/// Where one buffer's bytes come from in the source column.
struct Piece {
  const uint8_t* src = nullptr;
  uint64_t bytes = 0;
  bool present = false;
};

/// A source column cut into the byte ranges that cover its rows.
struct ColumnPieces {
  int64_t bit_offset = 0;  ///< the column's offset inside the copied buffers (0..7)
  Piece validity, values, data;
  int32_t offsets_base = 0;     ///< utf8, binary, list: subtracted from every copied offset
  std::optional<Column> items;  ///< list: the item rows the copied rows reference
  std::vector<Column> fields;   ///< struct: each field's rows under the copied rows
  std::string type_bytes;       ///< struct: its DataType, as data_type_codec writes it
};

ColumnPieces pieces_of(const Column& c) {
  ColumnPieces p;
  const TypeId id = c.type().id();
  if (id == TypeId::Null) return p;
  p.bit_offset = c.offset() % 8;
  const int64_t start = c.offset() - p.bit_offset;  // a whole byte of bits
  const int64_t n = p.bit_offset + c.size();
  if (c.validity_buffer()) {
    p.validity = {c.validity_buffer()->data() + start / 8, static_cast<uint64_t>(bytes_for_bits(n)),
                  true};
  }
  if (id == TypeId::FixedSizeList) {
    const int64_t k = c.type().list_size();
    p.items = c.child().slice(start * k, n * k);
    return p;
  }
  if (id == TypeId::Struct) {
    for (const Column& f : c.children()) p.fields.push_back(f.slice(start, n));
    MessageWriter type;
    put_data_type(type, c.type());
    p.type_bytes = type.bytes();
    return p;
  }
  const uint8_t* raw = c.values_buffer()->data();
  switch (id) {
    case TypeId::Boolean:
      p.values = {raw + start / 8, static_cast<uint64_t>(bytes_for_bits(n)), true};
      break;
    case TypeId::List:
    case TypeId::Map: {
      const auto* offsets = reinterpret_cast<const int32_t*>(raw) + start;
      p.offsets_base = offsets[0];
      p.values = {reinterpret_cast<const uint8_t*>(offsets), static_cast<uint64_t>(n + 1) * 4,
                  true};
      p.items = c.child().slice(offsets[0], offsets[n] - offsets[0]);
      break;
    }
    case TypeId::Utf8:
    case TypeId::Binary: {
      const auto* offsets = reinterpret_cast<const int32_t*>(raw) + start;
      p.offsets_base = offsets[0];
      p.values = {reinterpret_cast<const uint8_t*>(offsets), static_cast<uint64_t>(n + 1) * 4,
                  true};
      const char* chars = c.chars();
      p.data = {reinterpret_cast<const uint8_t*>(chars) + offsets[0],
                static_cast<uint64_t>(offsets[n] - offsets[0]), true};
      break;
    }
    default: {
      const int w = c.type().byte_width();
      p.values = {raw + start * w, static_cast<uint64_t>(n) * w, true};
      break;
    }
  }
  return p;
}

BufferRef place(const Piece& piece, uint64_t* cursor) {
  if (!piece.present) return {};
  BufferRef ref;
  ref.offset = *cursor;
  ref.size = piece.bytes;
  ref.present = 1;
  *cursor += padded(piece.bytes);
  return ref;
}

void copy_piece(const Piece& piece, const BufferRef& ref, uint8_t* base) {
  if (!ref.present) return;
  uint8_t* dst = base + ref.offset;
  if (piece.bytes) std::memcpy(dst, piece.src, piece.bytes);
  // Kernels may read a buffer's padding word-wise: give them zeros, not an older batch.
  std::memset(dst + piece.bytes, 0, padded(piece.bytes) - piece.bytes);
}

void copy_rebased_offsets(const Piece& piece, const BufferRef& ref, int32_t rebase, uint8_t* base) {
  const auto* src = reinterpret_cast<const int32_t*>(piece.src);
  auto* dst = reinterpret_cast<int32_t*>(base + ref.offset);
  const uint64_t count = piece.bytes / 4;
  for (uint64_t i = 0; i < count; ++i) dst[i] = src[i] - rebase;
  std::memset(base + ref.offset + piece.bytes, 0, padded(piece.bytes) - piece.bytes);
}

const uint8_t* checked_range(const BufferRef& ref, const SharedMapping& map) {
  if (ref.offset > map.size() || ref.size > map.size() - ref.offset) {
    throw Error("process isolation: a column descriptor points outside its shared region (" +
                std::to_string(ref.offset) + "+" + std::to_string(ref.size) + " > " +
                std::to_string(map.size()) + ")");
  }
  return map.data() + ref.offset;
}

// A list nests at most this deep on the wire; a deeper descriptor chain is corrupt.
constexpr int kMaxDepth = 16;

DataType checked_type(uint8_t id) {
  if (id > static_cast<uint8_t>(TypeId::Map)) {
    throw Error("process isolation: unsupported column type id " + std::to_string(id));
  }
  return DataType(static_cast<TypeId>(id));
}

/// The list, fixed-size list or map type whose items are of type `items`.
DataType list_type(TypeId id, const DataType& items, int32_t size) {
  if (id == TypeId::List) return list(items);
  if (id == TypeId::FixedSizeList) return fixed_size_list(items, size);
  if (items.id() != TypeId::Struct || items.fields().size() != 2)
    throw Error("process isolation: a map column's entries are not key/value structs");
  return map(items.fields()[0].type, items.fields()[1].type);
}

template <class MakeBuffer>
Column rebuild(const ColumnDesc& d, const SharedMapping& map, MakeBuffer&& make, int depth);

/// A struct column: its type from `values`, its fields' descriptors from `data`.
template <class MakeBuffer>
Column rebuild_struct(const ColumnDesc& d, const SharedMapping& map, MakeBuffer&& make, int depth,
                      std::shared_ptr<Buffer> validity) {
  if (depth >= kMaxDepth || !d.values.present)
    throw Error("process isolation: a struct column's type is missing or nested too deep");
  const std::string_view type_bytes(reinterpret_cast<const char*>(checked_range(d.values, map)),
                                    d.values.size);
  MessageReader reader = MessageReader::unframed(type_bytes);
  const DataType type = get_data_type(reader);
  if (type.id() != TypeId::Struct || !d.data.present ||
      d.data.size != type.fields().size() * sizeof(ColumnDesc))
    throw Error("process isolation: a struct column's field descriptors are missing or corrupt");
  const uint8_t* descs = checked_range(d.data, map);
  std::vector<Column> fields;
  for (size_t k = 0; k < type.fields().size(); ++k) {
    ColumnDesc field_desc;
    std::memcpy(&field_desc, descs + k * sizeof(ColumnDesc), sizeof(ColumnDesc));
    fields.push_back(rebuild(field_desc, map, make, depth + 1));
    if (fields.back().type() != type.fields()[k].type)
      throw Error("process isolation: struct field '" + type.fields()[k].name + "' arrived as " +
                  fields.back().type().to_string() + ", not " + type.fields()[k].type.to_string());
  }
  return Column::nested(type, d.length, d.null_count, std::move(validity), std::move(fields),
                        d.offset);
}

template <class MakeBuffer>
Column rebuild(const ColumnDesc& d, const SharedMapping& map, MakeBuffer&& make, int depth) {
  auto buffer = [&](const BufferRef& ref) -> std::shared_ptr<Buffer> {
    if (!ref.present) return nullptr;
    return make(checked_range(ref, map), static_cast<int64_t>(ref.size));
  };
  const DataType type = checked_type(d.type_id);
  if (type.id() == TypeId::Struct) return rebuild_struct(d, map, make, depth, buffer(d.validity));
  if (!type.is_list()) {
    return Column::from_buffers(type, d.length, d.null_count, buffer(d.validity), buffer(d.values),
                                buffer(d.data), d.offset);
  }
  if (depth >= kMaxDepth || !d.data.present || d.data.size != sizeof(ColumnDesc))
    throw Error("process isolation: a list column's item descriptor is missing or corrupt");
  ColumnDesc item_desc;
  std::memcpy(&item_desc, checked_range(d.data, map), sizeof(ColumnDesc));
  Column items = rebuild(item_desc, map, make, depth + 1);
  int32_t size = 0;
  std::memcpy(&size, d.reserved, sizeof(size));
  const DataType nested = list_type(type.id(), items.type(), size);
  return Column::nested(nested, d.length, d.null_count, buffer(d.validity), buffer(d.values),
                        std::move(items), d.offset);
}

/// One column's place in the region: its descriptor, its items' for a list, its fields' for a
/// struct.
struct Placed {
  ColumnPieces pieces;
  ColumnDesc desc;
  std::unique_ptr<Placed> items;
  std::vector<Placed> fields;
};

Placed place_column(const Column& c, uint64_t* cursor) {
  Placed out;
  out.pieces = pieces_of(c);
  const ColumnPieces& p = out.pieces;
  ColumnDesc& d = out.desc;
  d.type_id = static_cast<uint8_t>(c.type().id());
  d.length = c.size();
  d.null_count = c.null_count();
  d.offset = p.bit_offset;
  if (c.type().id() == TypeId::FixedSizeList) {
    const int32_t size = c.type().list_size();
    std::memcpy(d.reserved, &size, sizeof(size));
  }
  d.validity = place(p.validity, cursor);
  d.values = place(p.values, cursor);
  if (c.type().id() == TypeId::Struct) {
    d.values = place(Piece{nullptr, p.type_bytes.size(), true}, cursor);
    d.data = place(Piece{nullptr, p.fields.size() * sizeof(ColumnDesc), true}, cursor);
    for (const Column& f : p.fields) out.fields.push_back(place_column(f, cursor));
  } else if (p.items) {
    d.data = place(Piece{nullptr, sizeof(ColumnDesc), true}, cursor);
    out.items = std::make_unique<Placed>(place_column(*p.items, cursor));
  } else {
    d.data = place(p.data, cursor);
  }
  return out;
}

/// `d` as seen from a mapping that starts `by` bytes before the region it was placed in.
ColumnDesc shifted(ColumnDesc d, uint64_t by) {
  for (BufferRef* ref : {&d.validity, &d.values, &d.data})
    if (ref->present) ref->offset += by;
  return d;
}

/// Copies the column's bytes into `base`; the descriptors it writes there (a list's items', a
/// struct's fields') count from `shift` bytes before `base`.
void copy_placed(const Placed& placed, uint8_t* base, uint64_t shift) {
  const ColumnPieces& p = placed.pieces;
  const ColumnDesc& d = placed.desc;
  copy_piece(p.validity, d.validity, base);
  if (placed.desc.type_id == static_cast<uint8_t>(TypeId::Struct)) {
    copy_piece(
        Piece{reinterpret_cast<const uint8_t*>(p.type_bytes.data()), p.type_bytes.size(), true},
        d.values, base);
    std::vector<ColumnDesc> descs;
    for (const Placed& f : placed.fields) descs.push_back(shifted(f.desc, shift));
    copy_piece(Piece{reinterpret_cast<const uint8_t*>(descs.data()),
                     descs.size() * sizeof(ColumnDesc), true},
               d.data, base);
    for (const Placed& f : placed.fields) copy_placed(f, base, shift);
    return;
  }
  if (p.offsets_base != 0) {
    copy_rebased_offsets(p.values, d.values, p.offsets_base, base);
  } else {
    copy_piece(p.values, d.values, base);
  }
  if (placed.items) {
    const ColumnDesc items = shifted(placed.items->desc, shift);
    copy_piece(Piece{reinterpret_cast<const uint8_t*>(&items), sizeof(ColumnDesc), true}, d.data,
               base);
    copy_placed(*placed.items, base, shift);
  } else {
    copy_piece(p.data, d.data, base);
  }
}

}  // namespace

int64_t plan_columns(const std::vector<Column>& columns, std::vector<ColumnDesc>* descs) {
  descs->clear();
  descs->reserve(columns.size());
  uint64_t cursor = 0;
  for (const Column& c : columns) descs->push_back(place_column(c, &cursor).desc);
  return static_cast<int64_t>(cursor);
}

void copy_columns(const std::vector<Column>& columns, const std::vector<ColumnDesc>& descs,
                  uint8_t* base, uint64_t region_at) {
  // Placement is deterministic: placing again finds the positions plan_columns gave `descs`.
  uint64_t cursor = 0;
  for (size_t i = 0; i < columns.size() && i < descs.size(); ++i) {
    copy_placed(place_column(columns[i], &cursor), base, region_at);
  }
}

Column wrap_column(const ColumnDesc& desc, const std::shared_ptr<SharedMapping>& map) {
  return rebuild(
      desc, *map,
      [&](const uint8_t* p, int64_t size) {
        return detail::BufferAccess::wrap(p, size, std::shared_ptr<void>(map));
      },
      0);
}

Column copy_column(const ColumnDesc& desc, const SharedMapping& map) {
  return rebuild(
      desc, map,
      [](const uint8_t* p, int64_t size) {
        auto b = Buffer::allocate(size);
        if (size) std::memcpy(detail::BufferAccess::mutable_data(*b), p, static_cast<size_t>(size));
        return b;
      },
      0);
}

}  // namespace ember::process
