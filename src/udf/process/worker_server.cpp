// Worker process main loop: Hello, Init (construct the UDF, open its call lanes), then Call
// after Call on each lane; Stop or the driver's disappearance destroys the UDF and exits.
#include "udf/process/worker_server.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ember/udf.h"
#include "udf/init_args_codec.h"
#include "udf/process/control_channel.h"
#include "udf/process/lane_server.h"
#include "udf/process/shared_region.h"
#include "udf/process/wire_message.h"

namespace ember::process {

namespace {

/// How long the first lane polls for the next Call after a Result before it blocks (see
/// LaneServer: the same spin, on the channel that also brings Stop).
constexpr auto kNextCallSpin = std::chrono::microseconds(100);

class WorkerServer {
 public:
  explicit WorkerServer(int fd) : channel_(UniqueFd(fd)) {}
  [[noreturn]] void run();

 private:
  void initialise();
  /// Takes the channels of lanes 1..lanes-1 (one Lane message each, right after Ready) and
  /// serves each on a thread of its own.
  void open_extra_lanes(uint32_t lanes);

  ControlChannel channel_;  ///< Init and Stop, and lane 0's Calls
  MessageWriter writer_;
  std::unique_ptr<detail::UdfInstance> udf_;
  std::unique_ptr<LaneServer> first_lane_;
  /// Lanes 1.. : each thread owns its channel; they end when the driver closes them.
  std::vector<std::thread> lane_threads_;
};

void WorkerServer::initialise() {
  writer_.begin(Op::Hello);
  writer_.put(static_cast<int32_t>(::getpid()));
  if (!channel_.send(writer_.bytes())) exit_worker(0);
  std::string_view message;
  UniqueFd region;
  if (channel_.receive(&message, &region) != ControlChannel::Status::Message) exit_worker(0);
  MessageReader in(message);
  if (in.header().op != Op::Init || !region) throw Error("expected Init with its region");
  std::shared_ptr<SharedMapping> args_map = map_received_region(region.get());
  uint32_t lanes = 1;
  int result_fd = -1;
  const auto failure = capture_failure([&] {
    const std::string class_name(in.get_string());
    ActorContext ctx;
    ctx.actor_id = in.get<int32_t>();
    ctx.num_cpus = in.get<double>();
    ctx.memory_bytes = in.get<int64_t>();
    const auto gpus = in.get<uint32_t>();
    for (uint32_t i = 0; i < gpus; ++i) ctx.gpu_ids.push_back(in.get<int32_t>());
    const auto args_bytes = in.get<uint64_t>();
    lanes = in.get<uint32_t>();
    if (args_bytes > args_map->size()) throw Error("init args outside their region");
    const InitArgs args = deserialize_init_args(std::string_view(
        reinterpret_cast<const char*>(args_map->data()), static_cast<size_t>(args_bytes)));
    const detail::UdfFactory* factory = detail::find_udf_factory(class_name);
    if (factory == nullptr) {
      throw UdfError("class '" + class_name +
                     "' is not registered in the worker binary; add EMBER_REGISTER_UDF(" +
                     class_name + ") to a .cpp file linked into it");
    }
    udf_ = (*factory)(args, ctx);
    first_lane_ = std::make_unique<LaneServer>(channel_, *udf_);
    result_fd = first_lane_->announce_result_region();
  });
  if (failure) {
    write_failure(writer_, *failure);
    channel_.send(writer_.bytes());
    exit_worker(0);
  }
  writer_.begin(Op::Ready, kRegionAttached);
  if (!channel_.send(writer_.bytes(), result_fd)) exit_worker(0);
  if (lanes > 1) open_extra_lanes(lanes);
}

void WorkerServer::open_extra_lanes(uint32_t lanes) {
  for (uint32_t i = 1; i < lanes; ++i) {
    std::string_view message;
    UniqueFd lane_fd;
    if (channel_.receive(&message, &lane_fd) != ControlChannel::Status::Message) exit_worker(0);
    if (MessageReader(message).header().op != Op::Lane || !lane_fd)
      throw Error("expected a call lane's channel after Ready");
    // The instance outlives every lane thread: run() joins them before destroying it.
    lane_threads_.emplace_back([fd = lane_fd.release(), udf = udf_.get()] {
      try {
        ControlChannel channel{UniqueFd(fd)};
        LaneServer(channel, *udf).serve_until_closed();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "ember worker: %s\n", e.what());
        exit_worker(3);
      }
    });
  }
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
    first_lane_->serve_call(in, std::move(region));
  }
  // The driver closes the other lanes as it stops the worker: their calls are over.
  for (std::thread& t : lane_threads_) t.join();
  first_lane_.reset();
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
