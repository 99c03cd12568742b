// Column layout in shared regions. A sliced column keeps its sub-byte bit offset (0..7) so that
// bitmaps are copied bytewise; utf8 offsets are rebased so only the referenced characters move.
#include "udf/process/column_transfer.h"

#include <algorithm>
#include <cstring>
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
  int32_t offsets_base = 0;  ///< utf8: subtracted from every copied offset
};

ColumnPieces pieces_of(const Column& c) {
  ColumnPieces p;
  const TypeId id = c.type().id();
  if (id == TypeId::List) {
    throw UdfError("process isolation cannot pass list columns to or from a worker yet");
  }
  if (id == TypeId::Null) return p;
  p.bit_offset = c.offset() % 8;
  const int64_t start = c.offset() - p.bit_offset;  // a whole byte of bits
  const int64_t n = p.bit_offset + c.size();
  if (c.validity_buffer()) {
    p.validity = {c.validity_buffer()->data() + start / 8, static_cast<uint64_t>(bytes_for_bits(n)),
                  true};
  }
  const uint8_t* raw = c.values_buffer()->data();
  switch (id) {
    case TypeId::Boolean:
      p.values = {raw + start / 8, static_cast<uint64_t>(bytes_for_bits(n)), true};
      break;
    case TypeId::Int64:
    case TypeId::Float64:
      p.values = {raw + start * 8, static_cast<uint64_t>(n) * 8, true};
      break;
    case TypeId::Utf8: {
      const auto* offsets = reinterpret_cast<const int32_t*>(raw) + start;
      p.offsets_base = offsets[0];
      p.values = {reinterpret_cast<const uint8_t*>(offsets), static_cast<uint64_t>(n + 1) * 4,
                  true};
      const char* chars = c.chars();
      p.data = {reinterpret_cast<const uint8_t*>(chars) + offsets[0],
                static_cast<uint64_t>(offsets[n] - offsets[0]), true};
      break;
    }
    default:
      break;
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

DataType checked_type(uint8_t id) {
  if (id > static_cast<uint8_t>(TypeId::Utf8)) {
    throw Error("process isolation: unsupported column type id " + std::to_string(id));
  }
  return DataType(static_cast<TypeId>(id));
}

template <class MakeBuffer>
Column rebuild(const ColumnDesc& d, const SharedMapping& map, MakeBuffer&& make) {
  auto buffer = [&](const BufferRef& ref) -> std::shared_ptr<Buffer> {
    if (!ref.present) return nullptr;
    return make(checked_range(ref, map), static_cast<int64_t>(ref.size));
  };
  return Column::from_buffers(checked_type(d.type_id), d.length, d.null_count, buffer(d.validity),
                              buffer(d.values), buffer(d.data), d.offset);
}

}  // namespace

int64_t plan_columns(const std::vector<Column>& columns, std::vector<ColumnDesc>* descs) {
  descs->clear();
  descs->reserve(columns.size());
  uint64_t cursor = 0;
  for (const Column& c : columns) {
    const ColumnPieces p = pieces_of(c);
    ColumnDesc d;
    d.type_id = static_cast<uint8_t>(c.type().id());
    d.length = c.size();
    d.null_count = c.null_count();
    d.offset = p.bit_offset;
    d.validity = place(p.validity, &cursor);
    d.values = place(p.values, &cursor);
    d.data = place(p.data, &cursor);
    descs->push_back(d);
  }
  return static_cast<int64_t>(cursor);
}

void copy_columns(const std::vector<Column>& columns, const std::vector<ColumnDesc>& descs,
                  uint8_t* base) {
  for (size_t i = 0; i < columns.size(); ++i) {
    const ColumnPieces p = pieces_of(columns[i]);
    const ColumnDesc& d = descs[i];
    copy_piece(p.validity, d.validity, base);
    if (p.offsets_base != 0) {
      copy_rebased_offsets(p.values, d.values, p.offsets_base, base);
    } else {
      copy_piece(p.values, d.values, base);
    }
    copy_piece(p.data, d.data, base);
  }
}

Column wrap_column(const ColumnDesc& desc, const std::shared_ptr<SharedMapping>& map) {
  return rebuild(desc, *map, [&](const uint8_t* p, int64_t size) {
    return Buffer::wrap(p, size, std::shared_ptr<void>(map));
  });
}

Column copy_column(const ColumnDesc& desc, const SharedMapping& map) {
  return rebuild(desc, map, [](const uint8_t* p, int64_t size) {
    auto b = Buffer::allocate(size);
    if (size) std::memcpy(detail::BufferAccess::mutable_data(*b), p, static_cast<size_t>(size));
    return b;
  });
}

}  // namespace ember::process
