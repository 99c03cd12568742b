// Packing columns behind a message's control fields, and wrapping them again on arrival.
#include "dist/batch_message.h"

#include <cstring>

#include "udf/process/column_transfer.h"

namespace ember::dist {

namespace {

constexpr uint64_t kAlign = 64;

uint64_t align_up(uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

void shift(process::BufferRef& ref, uint64_t by) {
  if (ref.present) ref.offset += by;
}

}  // namespace

MessageBuffer pack_columns(const process::MessageWriter& head, const std::vector<Column>& columns,
                           const std::vector<std::string>& names) {
  std::vector<process::ColumnDesc> descs;
  const int64_t region_bytes = process::plan_columns(columns, &descs);
  process::MessageWriter tail;  // the descriptors and names, after the head's fields
  tail.begin(process::Op::Call);
  tail.put(static_cast<uint32_t>(columns.size()));
  for (size_t i = 0; i < columns.size(); ++i) {
    tail.put(descs[i]);
    tail.put_string(i < names.size() ? names[i] : std::string());
  }
  const std::string_view tail_fields = std::string_view(tail.bytes()).substr(2);
  // The region's offset is the last field: its own 8 bytes count towards where the region goes.
  const uint64_t fields = head.bytes().size() + tail_fields.size() + sizeof(uint64_t);
  const uint64_t region_at = align_up(fields);
  MessageBuffer message(region_at + static_cast<uint64_t>(region_bytes));
  char* out = message.data();
  std::memset(out, 0, region_at);  // the padding before the region: every byte sent is set
  std::memcpy(out, head.bytes().data(), head.bytes().size());
  out += head.bytes().size();
  std::memcpy(out, tail_fields.data(), tail_fields.size());
  out += tail_fields.size();
  std::memcpy(out, &region_at, sizeof region_at);
  process::copy_columns(columns, descs, reinterpret_cast<uint8_t*>(message.data() + region_at));
  return message;
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
