// Worker process main loop: Hello, Init (construct the UDF), then Call after Call; Stop or the
// driver's disappearance destroys the UDF and exits.
#include "udf/process/worker_server.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/batch.h"
#include "ember/udf.h"
#include "udf/process/column_transfer.h"
#include "udf/process/control_channel.h"
#include "udf/process/result_arena.h"
#include "udf/process/shared_region.h"
#include "udf/process/wire_message.h"

namespace ember::process {

namespace {

/// Error text sent back is cut here: it is a control message, not a log.
constexpr size_t kMaxErrorBytes = 16 * 1024;
/// How long a worker polls for the next Call after sending a Result before it blocks: batches
/// that follow each other closely then never pay a sleep and wake-up, while an idle worker
/// stops using the CPU after this long.
constexpr auto kNextCallSpin = std::chrono::microseconds(100);
/// Buffers the UDF allocates from this size up are built in the result region (smaller ones
/// come from the heap and are copied: the copy is cheap, and the region is not filled with
/// small temporaries).
constexpr int64_t kArenaMinBytes = int64_t{64} << 10;

/// Flushes what the UDF printed (the process ends with _exit, which would drop it) and exits.
[[noreturn]] void exit_worker(int status) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(status);
}

class WorkerServer {
 public:
  explicit WorkerServer(int fd) : channel_(UniqueFd(fd)) {}
  [[noreturn]] void run();

 private:
  void initialise();
  void serve_call(MessageReader& in, UniqueFd region);
  /// Rebuilds the batch over the argument region (zero-copy) and runs the UDF.
  Column call_udf(MessageReader& in);
  /// Makes sure a result region exists and opens it to the UDF's allocations.
  void open_result_region();
  /// Prepares the Result message: in place when the UDF built the result in the result region,
  /// else after copying it there.
  void write_result(const Column& result);
  /// Describes `result` where it lies, if every buffer of it was built in the result region.
  bool describe_in_place(const Column& result);
  void begin_result(const ColumnDesc& desc);
  /// Region bytes to plan for when a call used `total` bytes of region for a `result_bytes`
  /// result: its large temporaries count too, up to as much again as the result, so that one
  /// scratch column does not push the result out of the region on every call, while a UDF with
  /// huge temporaries does not make the region hold all of them.
  static size_t working_set(size_t total, size_t result_bytes) {
    return std::min(total, 2 * result_bytes);
  }
  /// An exception caught in the worker, to travel as a value (code + text).
  struct Failure {
    ErrorCode code;
    std::string message;
    int64_t retry_after_ms = -1;  ///< the UDF threw RetryAfter: its delay
  };
  /// Runs `body`, turning an exception into a Failure.
  template <class F>
  std::optional<Failure> capture_failure(F&& body);
  void write_failure(const Failure& failure);

  ControlChannel channel_;
  MessageWriter writer_;
  std::shared_ptr<SharedMapping> args_map_;
  /// True while a column wrapped over args_map_ for the current call is referenced (set false,
  /// with release ordering, by whichever thread drops the last one).
  std::shared_ptr<std::atomic<bool>> args_in_use_;
  SharedRegion result_;
  /// result_ has not reached the driver yet: the next Result carries its memfd.
  bool result_unsent_ = false;
  /// Size for the next fresh result region: what the last call needed (plus headroom), so that
  /// a UDF building results of a steady size builds them in place from the start.
  size_t result_bytes_hint_ = 0;
  ResultArena arena_;
  std::unique_ptr<UdfInstance> udf_;
  std::vector<ColumnDesc> descs_;
  std::vector<Column> columns_;
  std::vector<Column> inputs_;  ///< the current call's argument columns, as the UDF got them
};

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

void WorkerServer::write_failure(const Failure& failure) {
  writer_.begin(Op::Failed);
  writer_.put(static_cast<uint8_t>(failure.code));
  writer_.put_string(std::string_view(failure.message).substr(0, kMaxErrorBytes));
  writer_.put(failure.retry_after_ms);
}

template <class F>
std::optional<WorkerServer::Failure> WorkerServer::capture_failure(F&& body) {
  try {
    body();
    return std::nullopt;
  } catch (const RetryAfter& e) {
    return Failure{e.code(), e.what(), e.delay().count()};
  } catch (const Error& e) {
    return Failure{e.code(), e.what()};
  } catch (const std::exception& e) {
    return Failure{ErrorCode::Udf, e.what()};
  } catch (...) {
    return Failure{ErrorCode::Udf, "unknown exception (not derived from std::exception)"};
  }
}

void WorkerServer::initialise() {
  writer_.begin(Op::Hello);
  writer_.put(static_cast<int32_t>(::getpid()));
  if (!channel_.send(writer_.bytes())) exit_worker(0);
  std::string_view message;
  UniqueFd region;
  if (channel_.receive(&message, &region) != ControlChannel::Status::Message) exit_worker(0);
  MessageReader in(message);
  if (in.header().op != Op::Init || !region) throw Error("expected Init with its region");
  args_map_ = map_received_region(region.get());
  const auto failure = capture_failure([&] {
    const std::string class_name(in.get_string());
    ActorContext ctx;
    ctx.actor_id = in.get<int32_t>();
    ctx.num_cpus = in.get<double>();
    ctx.memory_bytes = in.get<int64_t>();
    const auto gpus = in.get<uint32_t>();
    for (uint32_t i = 0; i < gpus; ++i) ctx.gpu_ids.push_back(in.get<int32_t>());
    const auto args_bytes = in.get<uint64_t>();
    if (args_bytes > args_map_->size()) throw Error("init args outside their region");
    const InitArgs args = InitArgs::deserialize(std::string_view(
        reinterpret_cast<const char*>(args_map_->data()), static_cast<size_t>(args_bytes)));
    const UdfFactory* factory = detail::find_udf_factory(class_name);
    if (factory == nullptr) {
      throw UdfError("class '" + class_name +
                     "' is not registered in the worker binary; add EMBER_REGISTER_UDF(" +
                     class_name + ") to a .cpp file linked into it");
    }
    udf_ = (*factory)(args, ctx);
    result_ = SharedRegion::create("ember-result", 0);
  });
  if (failure) {
    write_failure(*failure);
    channel_.send(writer_.bytes());
    exit_worker(0);
  }
  writer_.begin(Op::Ready, kRegionAttached);
  if (!channel_.send(writer_.bytes(), result_.fd.get())) exit_worker(0);
}

Column WorkerServer::call_udf(MessageReader& in) {
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
  Column result = udf_->call(batch);
  arena_.end();
  return result;
}

void WorkerServer::open_result_region() {
  if (!result_.map) {
    result_ = SharedRegion::create("ember-result", result_bytes_hint_);
    result_unsent_ = true;
  }
  arena_.begin(result_.map);
}

bool WorkerServer::describe_in_place(const Column& result) {
  if (result.type().is_list()) return false;  // its items' descriptor must be written out
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

void WorkerServer::begin_result(const ColumnDesc& desc) {
  writer_.begin(Op::Result, result_unsent_ ? kRegionAttached : 0);
  writer_.put(desc);
}

void WorkerServer::write_result(const Column& result) {
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
  copy_columns(out, descs_, result_.map->data() + base);
  for (BufferRef* ref : {&descs_[0].validity, &descs_[0].values, &descs_[0].data}) {
    if (ref->present) ref->offset += base;
  }
  begin_result(descs_[0]);
}

void WorkerServer::serve_call(MessageReader& in, UniqueFd region) {
  if (in.header().flags & kRegionAttached) {
    if (!region) throw Error("a Call announced a region but none came");
    args_map_ = map_received_region(region.get());
  }
  // The driver still uses the last result's region: this result goes to a fresh one.
  if (in.header().flags & kResultRegionBusy) result_ = SharedRegion{};
  if (auto failure = capture_failure([&] {
        open_result_region();
        write_result(call_udf(in));
      })) {
    write_failure(*failure);
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

void WorkerServer::run() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a UDF's progress lines show up as they happen
  initialise();
  for (;;) {
    std::string_view message;
    UniqueFd region;
    const auto status = channel_.receive_soon(&message, &region, kNextCallSpin);
    if (status != ControlChannel::Status::Message) break;
    MessageReader in(message);
    if (in.header().op == Op::Stop) break;
    if (in.header().op != Op::Call) throw Error("unexpected message in a worker");
    serve_call(in, std::move(region));
  }
  // Destroying the UDF is its teardown hook; a throwing destructor still ends the worker.
  if (auto failure = capture_failure([&] { udf_.reset(); })) {
    std::fprintf(stderr, "ember worker: the UDF's destructor failed: %s\n",
                 failure->message.c_str());
  }
  exit_worker(0);
}

}  // namespace

void serve_as_worker(int control_fd) {
  try {
    WorkerServer(control_fd).run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember worker: %s\n", e.what());
    exit_worker(3);
  }
}

}  // namespace ember::process
