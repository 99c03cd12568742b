// One call lane of a worker: rebuilds each Call's batch over the shared argument region, runs
// the UDF with large result buffers built in the lane's result region, and replies.
#include "udf/process/lane_server.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <utility>

#include "udf/process/column_transfer.h"
#include "udf/udf_call.h"

namespace ember::process {

namespace {

/// Error text sent back is cut here: it is a control message, not a log.
constexpr size_t kMaxErrorBytes = 16 * 1024;
/// How long a lane polls for the next Call after sending a Result before it blocks: batches
/// that follow each other closely then never pay a sleep and wake-up, while an idle worker
/// stops using the CPU after this long.
constexpr auto kNextCallSpin = std::chrono::microseconds(100);
/// Buffers the UDF allocates from this size up are built in the result region (smaller ones
/// come from the heap and are copied: the copy is cheap, and the region is not filled with
/// small temporaries).
constexpr int64_t kArenaMinBytes = int64_t{64} << 10;

/// Region bytes to plan for when a call used `total` bytes of region for a `result_bytes`
/// result: its large temporaries count too, up to as much again as the result, so that one
/// scratch column does not push the result out of the region on every call, while a UDF with
/// huge temporaries does not make the region hold all of them.
size_t working_set(size_t total, size_t result_bytes) { return std::min(total, 2 * result_bytes); }

/// The argument column `result` is a slice of (same buffers), as (index, row offset), if any.
std::optional<std::pair<uint32_t, int64_t>> input_source(const Column& result,
                                                         const std::vector<Column>& inputs) {
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Column& in = inputs[k];
    if (in.type() != result.type() || in.values_buffer() != result.values_buffer() ||
        in.validity_buffer() != result.validity_buffer() ||
        in.data_buffer() != result.data_buffer() || !in.values_buffer()) {
      continue;
    }
    const int64_t delta = result.offset() - in.offset();
    if (delta >= 0 && delta + result.size() <= in.size()) {
      return std::pair<uint32_t, int64_t>{static_cast<uint32_t>(k), delta};
    }
  }
  return std::nullopt;
}

}  // namespace

void exit_worker(int status) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(status);
}

void write_failure(MessageWriter& writer, const WorkerFailure& failure) {
  writer.begin(Op::Failed);
  writer.put(static_cast<uint8_t>(failure.code));
  writer.put_string(std::string_view(failure.message).substr(0, kMaxErrorBytes));
  writer.put(failure.retry_after_ms);
}

int LaneServer::announce_result_region() {
  result_ = SharedRegion::create("ember-result", 0);
  return result_.fd.get();
}

Column LaneServer::call_udf(MessageReader& in) {
  if (!args_map_) throw Error("a Call came without an argument region");
  const auto rows = in.get<int64_t>();
  const auto ncols = in.get<uint32_t>();
  descs_.resize(ncols);
  for (auto& d : descs_) d = in.get<ColumnDesc>();
  columns_.clear();
  args_in_use_ = std::make_shared<std::atomic<bool>>(true);
  const std::shared_ptr<SharedMapping> owner(
      args_map_.get(), [map = args_map_, in_use = args_in_use_](SharedMapping*) {
        in_use->store(false, std::memory_order_release);
      });
  std::vector<Field> fields;
  for (const auto& d : descs_) {
    columns_.push_back(wrap_column(d, owner));
    fields.push_back({std::string(in.get_string()), columns_.back().type()});
  }
  inputs_ = columns_;
  const Batch batch = ncols == 0 ? Batch::empty_with_rows(rows)
                                 : Batch(Schema(std::move(fields)), std::move(columns_));
  columns_.clear();
  const ScopedBufferSource in_region(&arena_, kArenaMinBytes);
  Column result = udf_.call(batch);
  arena_.end();
  // Checked before anything is sent: a result of the wrong length (a default Column() has no
  // buffers at all) is the UDF's error, never the worker's crash.
  if (result.size() != rows) throw RejectedResult{result_shape(result, rows)};
  return result;
}

void LaneServer::open_result_region() {
  if (!result_.map) {
    result_ = SharedRegion::create("ember-result", result_bytes_hint_);
    result_unsent_ = true;
  }
  arena_.begin(result_.map);
}

bool LaneServer::describe_in_place(const Column& result) {
  // A list's items and a struct's fields need descriptors of their own, written out.
  if (result.type().is_nested()) return false;
  ColumnDesc d;
  d.type_id = static_cast<uint8_t>(result.type().id());
  d.length = result.size();
  d.null_count = result.null_count();
  d.offset = result.offset();
  const std::pair<const std::shared_ptr<Buffer>*, BufferRef*> parts[] = {
      {&result.validity_buffer(), &d.validity},
      {&result.values_buffer(), &d.values},
      {&result.data_buffer(), &d.data}};
  size_t bytes = 0;
  for (const auto& [buffer, ref] : parts) {
    if (!*buffer) continue;
    if (!arena_.holds(**buffer)) return false;
    ref->offset = arena_.offset_of(**buffer);
    ref->size = static_cast<uint64_t>((*buffer)->size());
    ref->present = 1;
    bytes += ref->size;
  }
  if (bytes == 0) return false;
  result_bytes_hint_ = working_set(arena_.used(), bytes);
  begin_result(d);
  return true;
}

void LaneServer::begin_result(const ColumnDesc& desc) {
  writer_.begin(Op::Result, result_unsent_ ? kRegionAttached : 0);
  writer_.put(desc);
}

void LaneServer::write_result(const Column& result) {
  // An argument handed back (the identity, or a slice of it) needs no copy: the driver still
  // has that column.
  if (const auto source = input_source(result, inputs_)) {
    writer_.begin(Op::Result, kInputPassThrough);
    writer_.put(source->first);
    writer_.put(source->second);
    writer_.put(result.size());
    return;
  }
  if (describe_in_place(result)) return;  // built in the region: nothing to copy
  const std::vector<Column> out{result};
  const auto needed = static_cast<size_t>(plan_columns(out, &descs_));
  // The copy goes after what the UDF built in the region this call (it may read from there).
  uint64_t base = arena_.used();
  result_bytes_hint_ = working_set(base + needed, needed);
  if (!result_.map || result_.size() < base + needed) {
    // Buffers built in the old region keep their own mapping of it.
    result_ = SharedRegion::create("ember-result", result_bytes_hint_);
    result_unsent_ = true;
    base = 0;
  }
  copy_columns(out, descs_, result_.map->data() + base, base);
  for (BufferRef* ref : {&descs_[0].validity, &descs_[0].values, &descs_[0].data}) {
    if (ref->present) ref->offset += base;
  }
  begin_result(descs_[0]);
}

void LaneServer::serve_call(MessageReader& in, UniqueFd region) {
  if (in.header().flags & kRegionAttached) {
    if (!region) throw Error("a Call announced a region but none came");
    args_map_ = map_received_region(region.get());
  }
  // The driver still uses the last result's region: this result goes to a fresh one.
  if (in.header().flags & kResultRegionBusy) result_ = SharedRegion{};
  std::optional<RejectedResult> rejected;
  if (auto failure = capture_failure([&] {
        open_result_region();
        try {
          write_result(call_udf(in));
        } catch (RejectedResult& r) {
          rejected = std::move(r);
        }
      })) {
    write_failure(writer_, *failure);
  } else if (rejected) {
    write_failure(writer_, WorkerFailure{ErrorCode::Udf, rejected->shape});
    writer_.add_flags(kResultRejected);
  }
  arena_.end();  // also when the call threw
  inputs_.clear();
  // The batch and the result are gone, so only the UDF can still hold the argument region
  // (even when the call failed): if it does, the driver must not overwrite it and sends a
  // fresh region with the next call.
  if (args_in_use_ && args_in_use_->load(std::memory_order_acquire)) {
    args_map_.reset();
    writer_.add_flags(kArgsRetained);
  }
  args_in_use_.reset();
  const int attached = (writer_.flags() & kRegionAttached) ? result_.fd.get() : -1;
  if (!channel_.send(writer_.bytes(), attached)) exit_worker(0);
  if (attached >= 0) result_unsent_ = false;
  // The UDF kept a buffer it built in the result region (a cache, say): the next results go to
  // a fresh region so that it never sees those bytes change.
  if (arena_.in_use()) result_ = SharedRegion{};
}

void LaneServer::serve_until_closed() {
  for (;;) {
    std::string_view message;
    UniqueFd region;
    if (channel_.receive_soon(&message, &region, kNextCallSpin) != ControlChannel::Status::Message)
      return;
    MessageReader in(message);
    if (in.header().op != Op::Call) throw Error("unexpected message on a worker's call lane");
    serve_call(in, std::move(region));
  }
}

}  // namespace ember::process
