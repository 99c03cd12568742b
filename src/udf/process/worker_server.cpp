// Worker process main loop: Hello, Init (construct the UDF), then Call after Call; Stop or the
// driver's disappearance destroys the UDF and exits.
#include "udf/process/worker_server.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "ember/batch.h"
#include "ember/udf.h"
#include "udf/process/column_transfer.h"
#include "udf/process/control_channel.h"
#include "udf/process/shared_region.h"
#include "udf/process/wire_message.h"

namespace ember::process {

namespace {

/// Error text sent back is cut here: it is a control message, not a log.
constexpr size_t kMaxErrorBytes = 16 * 1024;

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
  /// Copies the result into the result region and prepares the Result message.
  void write_result(const Column& result);
  void send_failure(ErrorCode code, std::string_view message);
  template <class F>
  bool guarded(F&& body);

  ControlChannel channel_;
  MessageWriter writer_;
  std::shared_ptr<SharedMapping> args_map_;
  SharedRegion result_;
  std::unique_ptr<UdfInstance> udf_;
  std::vector<ColumnDesc> descs_;
  std::vector<Column> columns_;
};

void WorkerServer::send_failure(ErrorCode code, std::string_view message) {
  writer_.begin(Op::Failed);
  writer_.put(static_cast<uint8_t>(code));
  writer_.put_string(message.substr(0, kMaxErrorBytes));
  if (!channel_.send(writer_.bytes())) exit_worker(0);
}

/// Runs `body`; an exception becomes a Failed message (as error code + text). Returns whether
/// `body` succeeded.
template <class F>
bool WorkerServer::guarded(F&& body) {
  try {
    body();
    return true;
  } catch (const Error& e) {
    send_failure(e.code(), e.what());
  } catch (const std::exception& e) {
    send_failure(ErrorCode::Udf, e.what());
  } catch (...) {
    send_failure(ErrorCode::Udf, "unknown exception (not derived from std::exception)");
  }
  return false;
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
  const bool ok = guarded([&] {
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
      throw UdfError("class '" + class_name + "' is not registered in the worker binary; add EMBER_REGISTER_UDF(" +
                     class_name + ") to a .cpp file linked into it");
    }
    udf_ = (*factory)(args, ctx);
    result_ = SharedRegion::create("ember-result", 0);
  });
  if (!ok) exit_worker(0);
  writer_.begin(Op::Ready, kRegionAttached);
  if (!channel_.send(writer_.bytes(), result_.fd.get())) exit_worker(0);
}

Column WorkerServer::call_udf(MessageReader& in) {
  const auto rows = in.get<int64_t>();
  const auto ncols = in.get<uint32_t>();
  descs_.resize(ncols);
  for (auto& d : descs_) d = in.get<ColumnDesc>();
  columns_.clear();
  std::vector<Field> fields;
  for (const auto& d : descs_) {
    columns_.push_back(wrap_column(d, args_map_));
    fields.push_back({std::string(in.get_string()), columns_.back().type()});
  }
  const Batch batch = ncols == 0 ? Batch::empty_with_rows(rows)
                                 : Batch(Schema(std::move(fields)), std::move(columns_));
  columns_.clear();
  return udf_->call(batch);
}

void WorkerServer::write_result(const Column& result) {
  const std::vector<Column> out{result};
  const int64_t needed = plan_columns(out, &descs_);
  uint8_t flags = 0;
  if (!result_.map || result_.size() < static_cast<size_t>(needed)) {
    result_ = SharedRegion::create("ember-result", static_cast<size_t>(needed));
    flags |= kRegionAttached;
  }
  copy_columns(out, descs_, result_.map->data());
  writer_.begin(Op::Result, flags);
  writer_.put(descs_[0]);
}

void WorkerServer::serve_call(MessageReader& in, UniqueFd region) {
  if (in.header().flags & kRegionAttached) {
    if (!region) throw Error("a Call announced a region but none came");
    args_map_ = map_received_region(region.get());
  }
  // The driver still uses the last result's region: this result goes to a fresh one.
  if (in.header().flags & kResultRegionBusy) result_ = SharedRegion{};
  if (!guarded([&] { write_result(call_udf(in)); })) return;
  // The batch and the result are gone, so only the UDF can still hold the argument region: if
  // it does, the driver must not overwrite it and sends a fresh region with the next call.
  if (args_map_.use_count() > 1) {
    args_map_.reset();
    writer_.add_flags(kArgsRetained);
  }
  const int attached = (writer_.flags() & kRegionAttached) ? result_.fd.get() : -1;
  if (!channel_.send(writer_.bytes(), attached)) exit_worker(0);
}

void WorkerServer::run() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a UDF's progress lines show up as they happen
  initialise();
  for (;;) {
    std::string_view message;
    UniqueFd region;
    if (channel_.receive(&message, &region) != ControlChannel::Status::Message) break;
    MessageReader in(message);
    if (in.header().op == Op::Stop) break;
    if (in.header().op != Op::Call) throw Error("unexpected message in a worker");
    serve_call(in, std::move(region));
  }
  // Destroying the UDF is its teardown hook; a failing destructor still ends the worker.
  guarded([&] { udf_.reset(); });
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
