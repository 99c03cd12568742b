// Starting a worker: fork + exec, wait for Hello (it reached ember::init), Init (construct the
// UDF; Ready brings lane 0's result region), then one Lane message per extra call lane.
#include "udf/process/live_worker.h"

#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>

#include "udf/init_args_codec.h"
#include "udf/process/wire_message.h"
#include "udf/process/worker_entry.h"

namespace ember::process {

namespace {

/// From exec to ember::init: static initialisers and the start of main(), nothing slow. A
/// worker that never gets there (main() does something else first) fails after this.
constexpr auto kStartupDeadline = std::chrono::seconds(60);
/// A worker whose socket closed is exiting; this only bounds a process stuck in the kernel.
constexpr auto kDeathGrace = std::chrono::seconds(5);

std::string join_ids(const std::vector<int>& ids) {
  std::string s;
// GCC 12 reports a false -Wrestrict inside std::string's inlined insert here (GCC bug
// 105651): the source and destination are distinct strings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  return s;
}

void await_hello(const WorkerStart& start, LiveWorker& w) {
  std::string_view message;
  const auto status = w.process->channel().receive(&message, nullptr,
                                                   ControlChannel::Clock::now() + kStartupDeadline);
  if (status == ControlChannel::Status::Message &&
      MessageReader(message).header().op == Op::Hello) {
    return;
  }
  const pid_t pid = w.process->pid();
  start.forget(pid);
  if (status == ControlChannel::Status::TimedOut) {
    throw UdfError(start.who + ": worker pid " + std::to_string(pid) +
                   " did not reach ember::init(argc, argv) within " +
                   std::to_string(kStartupDeadline.count()) +
                   " s; call it first thing in main(), before anything slow");
  }
  throw UdfError(start.who + ": " + w.describe_end() + " before it was ready to serve; a " +
                 "program that uses Isolation::Process must call ember::init(argc, argv) first " +
                 "thing in main()");
}

void construct_remote(const WorkerStart& start, LiveWorker& w) {
  // The init args travel in a region of their own, dropped once the worker has read them: the
  // lanes' argument regions may still be in use by calls finding out that a worker died.
  const UdfSpec& spec = *start.spec;
  const ActorContext& ctx = *start.ctx;
  const std::string init_args = serialize_init_args(spec.init_args);
  const SharedRegion init_region = SharedRegion::create("ember-init", init_args.size());
  std::memcpy(init_region.map->data(), init_args.data(), init_args.size());
  MessageWriter writer;
  writer.begin(Op::Init, kRegionAttached);
  writer.put_string(spec.class_name);
  writer.put(static_cast<int32_t>(ctx.actor_id));
  writer.put(ctx.num_cpus);
  writer.put(static_cast<int64_t>(ctx.memory_bytes));
  writer.put(static_cast<uint32_t>(ctx.gpu_ids.size()));
  for (int id : ctx.gpu_ids) writer.put(static_cast<int32_t>(id));
  writer.put(static_cast<uint64_t>(init_args.size()));
  writer.put(static_cast<uint32_t>(start.lanes));
  std::string_view message;
  UniqueFd region;
  ControlChannel& channel = w.process->channel();
  if (channel.send(writer.bytes(), init_region.fd.get()) &&
      channel.receive(&message, &region) == ControlChannel::Status::Message) {
    MessageReader in(message);
    if (in.header().op == Op::Ready && region) {
      w.first_result_map = map_received_region(region.get());
      return;
    }
    if (in.header().op != Op::Failed) throw Error(start.who + ": unexpected reply to Init");
    in.get<uint8_t>();
    const std::string cause(in.get_string());
    start.forget(w.process->pid());
    w.process->reap(kDeathGrace);
    throw UdfError(start.who + " failed to initialise: " + cause);
  }
  start.forget(w.process->pid());
  throw UdfError(start.who + ": " + w.describe_end() + " while constructing the UDF");
}

void open_extra_lanes(const WorkerStart& start, LiveWorker& w) {
  MessageWriter writer;
  for (int i = 1; i < start.lanes; ++i) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
      throw UdfError(start.who + ": could not open call lane " + std::to_string(i) +
                     " to its worker: " + std::strerror(errno));
    }
    UniqueFd mine(sv[0]), theirs(sv[1]);
    writer.begin(Op::Lane, kRegionAttached);
    if (!w.process->channel().send(writer.bytes(), theirs.get())) {
      start.forget(w.process->pid());
      throw UdfError(start.who + ": " + w.describe_end() + " while opening its call lanes");
    }
    // Our copy of the worker's end closes here, so that its death reads as end-of-file.
    w.extra_lanes.push_back(std::make_unique<ControlChannel>(std::move(mine)));
  }
}

}  // namespace

std::string LiveWorker::describe_end() {
  std::lock_guard lock(end_mu_);
  if (!end_) {
    const pid_t pid = process->pid();
    end_ = "worker pid " + std::to_string(pid) + " " + describe_exit(process->reap(kDeathGrace));
  }
  return *end_;
}

std::shared_ptr<LiveWorker> start_worker(const WorkerStart& start, uint64_t serial) {
  WorkerLaunch launch;
  launch.argv = *recorded_command_line();
  launch.env = {{"CUDA_VISIBLE_DEVICES", join_ids(start.ctx->gpu_ids)}};
  launch.output_prefix = "[" + start.spec->name + " #" + std::to_string(start.ctx->actor_id) + "] ";
  auto w = std::make_shared<LiveWorker>();
  w->serial = serial;
  try {
    w->process = start.spawner ? start.spawner->spawn(launch) : WorkerProcess::spawn(launch);
  } catch (const Error& e) {
    throw UdfError(start.who + ": " + e.what());
  }
  start.spawned(w->process->pid());
  try {
    await_hello(start, *w);
    construct_remote(start, *w);
    open_extra_lanes(start, *w);
  } catch (...) {
    start.forget(w->process->pid());
    throw;  // destroying `w` kills and reaps the worker
  }
  return w;
}

}  // namespace ember::process
