// Packing columns behind a message's control fields, and wrapping them again on arrival.
#include "dist/batch_message.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "udf/process/column_transfer.h"

namespace ember::dist {

namespace {

constexpr uint64_t kAlign = 64;

uint64_t align_up(uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

void shift(process::BufferRef& ref, uint64_t by) {
  if (ref.present) ref.offset += by;
}

/// The message's bytes before its region (head, descriptors, names, the region's offset, zero
/// padding), and the region's size.
std::pair<std::string, uint64_t> message_prefix(const process::MessageWriter& head,
                                                const std::vector<Column>& columns,
                                                const std::vector<std::string>& names,
                                                std::vector<process::ColumnDesc>* descs) {
  const int64_t region_bytes = process::plan_columns(columns, descs);
  process::MessageWriter tail;  // the descriptors and names, after the head's fields
  tail.begin(process::Op::Call);
  tail.put(static_cast<uint32_t>(columns.size()));
  for (size_t i = 0; i < columns.size(); ++i) {
    tail.put((*descs)[i]);
    tail.put_string(i < names.size() ? names[i] : std::string());
  }
  const std::string_view tail_fields = std::string_view(tail.bytes()).substr(2);
  // The region's offset is the last field: its own 8 bytes count towards where the region goes.
  const uint64_t fields = head.bytes().size() + tail_fields.size() + sizeof(uint64_t);
  const uint64_t region_at = align_up(fields);
  std::string prefix;
  prefix.reserve(region_at);
  prefix.append(head.bytes());
  prefix.append(tail_fields);
  prefix.append(reinterpret_cast<const char*>(&region_at), sizeof region_at);
  prefix.resize(region_at, '\0');  // the padding before the region: every byte sent is set
  return {std::move(prefix), static_cast<uint64_t>(region_bytes)};
}

/// What a gathered message holds on to until it is sent.
struct Kept {
  std::vector<Column> columns;
  std::vector<std::vector<int32_t>> rebased;  ///< sliced strings' offsets, from 0
};

/// One buffer of a column: where the region has it, and where its bytes are now.
struct Placed {
  uint64_t offset;
  uint64_t size;
  const void* src;
};

int64_t bytes_for_bits(int64_t bits) { return (bits + 7) / 8; }

/// The sources of column `c`'s buffers, by its descriptor; false for a column whose bytes are
/// not plain ranges of its buffers (a list, map or struct, whose nested descriptors are written
/// into the region: such a message is packed).
bool place_sources(const Column& c, const process::ColumnDesc& d, Kept& kept,
                   std::vector<Placed>* out) {
  const TypeId id = c.type().id();
  if (id == TypeId::Null) return true;
  if (c.type().is_nested()) return false;
  // The same ranges as the copy: whole bytes of bits, the rows' values, referenced characters.
  const int64_t bit_offset = c.offset() % 8;
  const int64_t start = c.offset() - bit_offset;
  const int64_t n = bit_offset + c.size();
  auto add = [&](const process::BufferRef& ref, const void* src, uint64_t size) {
    if (!ref.present) return size == 0 || src == nullptr;
    if (ref.size != size) return false;
    out->push_back({ref.offset, size, src});
    return true;
  };
  bool ok = true;
  if (c.validity_buffer())
    ok = add(d.validity, c.validity_buffer()->data() + start / 8,
             static_cast<uint64_t>(bytes_for_bits(n)));
  const uint8_t* raw = c.values_buffer()->data();
  if (id == TypeId::Boolean)
    return ok && add(d.values, raw + start / 8, static_cast<uint64_t>(bytes_for_bits(n)));
  if (id == TypeId::Utf8 || id == TypeId::Binary) {
    const auto* offsets = reinterpret_cast<const int32_t*>(raw) + start;
    const int32_t base = offsets[0];
    const void* values = offsets;
    if (base != 0) {  // a slice: its offsets start from 0 in the message
      auto& copy = kept.rebased.emplace_back(offsets, offsets + n + 1);
      for (int32_t& o : copy) o -= base;
      values = copy.data();
    }
    return ok && add(d.values, values, static_cast<uint64_t>(n + 1) * 4) &&
           add(d.data, c.chars() + base, static_cast<uint64_t>(offsets[n] - base));
  }
  const int w = c.type().byte_width();
  return ok && add(d.values, raw + start * w, static_cast<uint64_t>(n) * w);
}

/// Zeros for the padding between buffers (each under 64 bytes... or one empty buffer's 64).
constexpr uint8_t kZeros[256] = {};

}  // namespace

MessageBuffer pack_columns(const process::MessageWriter& head, const std::vector<Column>& columns,
                           const std::vector<std::string>& names) {
  std::vector<process::ColumnDesc> descs;
  auto [prefix, region_bytes] = message_prefix(head, columns, names, &descs);
  MessageBuffer message(prefix.size() + region_bytes);
  std::memcpy(message.data(), prefix.data(), prefix.size());
  process::copy_columns(columns, descs, reinterpret_cast<uint8_t*>(message.data() + prefix.size()),
                        prefix.size());
  return message;
}

GatherMessage gather_columns(const process::MessageWriter& head, const std::vector<Column>& columns,
                             const std::vector<std::string>& names) {
  std::vector<process::ColumnDesc> descs;
  auto [prefix, region_bytes] = message_prefix(head, columns, names, &descs);
  auto kept = std::make_shared<Kept>();
  kept->columns = columns;
  std::vector<Placed> placed;
  // EMBER_DIST_PACKED_MESSAGES=1 packs every batch as before (bench/dist's baseline for this).
  static const bool packed_only = [] {
    const char* v = std::getenv("EMBER_DIST_PACKED_MESSAGES");
    return v != nullptr && std::string_view(v) == "1";
  }();
  for (size_t i = 0; i < columns.size(); ++i) {
    if (packed_only || !place_sources(columns[i], descs[i], *kept, &placed)) {
      // Not plain ranges: the whole message, packed, as its one piece.
      auto packed = std::make_shared<MessageBuffer>(pack_columns(head, columns, names));
      GatherMessage whole;
      whole.pieces.push_back({packed->data(), packed->size()});
      whole.keep = packed;
      return whole;
    }
  }
  std::sort(placed.begin(), placed.end(),
            [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
  GatherMessage out;
  out.head = std::move(prefix);
  uint64_t cursor = 0;
  auto pad_to = [&](uint64_t to) {
    while (cursor < to) {
      const uint64_t n = std::min<uint64_t>(to - cursor, sizeof kZeros);
      out.pieces.push_back({kZeros, n});
      cursor += n;
    }
  };
  for (const Placed& p : placed) {
    pad_to(p.offset);
    if (p.size) out.pieces.push_back({p.src, p.size});
    cursor = p.offset + p.size;
  }
  pad_to(region_bytes);
  out.keep = std::move(kept);
  return out;
}

UnpackedColumns unpack_columns(process::MessageReader& in,
                               const std::shared_ptr<process::SharedMapping>& message) {
  const auto ncols = in.get<uint32_t>();
  std::vector<process::ColumnDesc> descs;
  UnpackedColumns out;
  for (uint32_t i = 0; i < ncols; ++i) {
    descs.push_back(in.get<process::ColumnDesc>());
    out.names.emplace_back(in.get_string());
  }
  const auto region_at = in.get<uint64_t>();
  if (region_at % kAlign != 0 || region_at > message->size())
    throw Error("distributed runner: a batch message names a region outside itself");
  for (process::ColumnDesc& d : descs) {
    // Descriptors count from the region; the mapping starts at the message's first byte.
    shift(d.validity, region_at);
    shift(d.values, region_at);
    shift(d.data, region_at);
    out.columns.push_back(process::wrap_column(d, message));
  }
  return out;
}

Batch to_batch(UnpackedColumns unpacked, int64_t rows) {
  if (unpacked.columns.empty()) return Batch::empty_with_rows(rows);
  std::vector<Field> fields;
  for (size_t i = 0; i < unpacked.columns.size(); ++i)
    fields.push_back({unpacked.names[i], unpacked.columns[i].type()});
  return Batch(Schema(std::move(fields)), std::move(unpacked.columns));
}

}  // namespace ember::dist
