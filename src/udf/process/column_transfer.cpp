// Column layout in shared regions. A sliced column keeps its sub-byte bit offset (0..7) so that
// bitmaps are copied bytewise; utf8 and list offsets are rebased so only the referenced
// characters or items move. A list's `data` buffer holds the ColumnDesc of its items, whose
// buffers lie in the same region: the tree travels without changing the control messages.
#include "udf/process/column_transfer.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "core/buffer_access.h"
#include "ember/error.h"

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
  const uint8_t* raw = c.values_buffer()->data();
  switch (id) {
    case TypeId::Boolean:
      p.values = {raw + start / 8, static_cast<uint64_t>(bytes_for_bits(n)), true};
      break;
    case TypeId::List: {
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
  if (id > static_cast<uint8_t>(TypeId::Date32)) {
    throw Error("process isolation: unsupported column type id " + std::to_string(id));
  }
  return DataType(static_cast<TypeId>(id));
}

template <class MakeBuffer>
Column rebuild(const ColumnDesc& d, const SharedMapping& map, MakeBuffer&& make, int depth) {
  auto buffer = [&](const BufferRef& ref) -> std::shared_ptr<Buffer> {
    if (!ref.present) return nullptr;
    return make(checked_range(ref, map), static_cast<int64_t>(ref.size));
  };
  const DataType type = checked_type(d.type_id);
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
  const DataType nested =
      type.id() == TypeId::List ? list(items.type()) : fixed_size_list(items.type(), size);
  return Column::nested(nested, d.length, d.null_count, buffer(d.validity), buffer(d.values),
                        std::move(items), d.offset);
}

/// One column's place in the region: its descriptor, and its items' for a list.
struct Placed {
  ColumnPieces pieces;
  ColumnDesc desc;
  std::unique_ptr<Placed> items;
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
  if (p.items) {
    d.data = place(Piece{nullptr, sizeof(ColumnDesc), true}, cursor);
    out.items = std::make_unique<Placed>(place_column(*p.items, cursor));
  } else {
    d.data = place(p.data, cursor);
  }
  return out;
}

void copy_placed(const Placed& placed, uint8_t* base) {
  const ColumnPieces& p = placed.pieces;
  const ColumnDesc& d = placed.desc;
  copy_piece(p.validity, d.validity, base);
  if (p.offsets_base != 0) {
    copy_rebased_offsets(p.values, d.values, p.offsets_base, base);
  } else {
    copy_piece(p.values, d.values, base);
  }
  if (placed.items) {
    const Piece desc_bytes{reinterpret_cast<const uint8_t*>(&placed.items->desc),
                           sizeof(ColumnDesc), true};
    copy_piece(desc_bytes, d.data, base);
    copy_placed(*placed.items, base);
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
                  uint8_t* base) {
  // Placement is deterministic: placing again finds the positions plan_columns gave `descs`.
  uint64_t cursor = 0;
  for (size_t i = 0; i < columns.size() && i < descs.size(); ++i) {
    copy_placed(place_column(columns[i], &cursor), base);
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
