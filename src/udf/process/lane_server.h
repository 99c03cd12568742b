// The worker side of one call lane: a control channel over which the driver sends Calls, one
// at a time, with their own argument and result regions. A worker has max_concurrency lanes.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/batch.h"
#include "ember/udf.h"
#include "udf/process/control_channel.h"
#include "udf/process/result_arena.h"
#include "udf/process/shared_region.h"
#include "udf/process/wire_message.h"

namespace ember::process {

/// Serves the Calls of one lane with the worker's one UDF instance: lanes run on threads of
/// their own and share nothing but the instance (whose operator() must then be thread-safe).
class LaneServer {
 public:
  LaneServer(ControlChannel& channel, detail::UdfInstance& udf) : channel_(channel), udf_(udf) {}

  /// Creates this lane's first result region and returns its descriptor, for the Ready message
  /// that announces it (lane 0 only).
  int announce_result_region();
  /// Runs one Call and sends its Result or Failed; exits the worker if the driver is gone.
  void serve_call(MessageReader& in, UniqueFd region);
  /// Serves Calls until the driver closes the lane (an extra lane's thread).
  void serve_until_closed();

 private:
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

  ControlChannel& channel_;
  detail::UdfInstance& udf_;
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
  std::vector<ColumnDesc> descs_;
  std::vector<Column> columns_;
  std::vector<Column> inputs_;  ///< the current call's argument columns, as the UDF got them
};

/// Thrown inside a call whose result has the wrong length: see kResultRejected.
struct RejectedResult {
  std::string shape;  ///< result_shape()
};

/// Flushes what the UDF printed (the process ends with _exit, which would drop it) and exits.
[[noreturn]] void exit_worker(int status);

/// An exception caught in the worker, to travel as a value (code + text).
struct WorkerFailure {
  ErrorCode code;
  std::string message;
  int64_t retry_after_ms = -1;  ///< the UDF threw RetryAfter: its delay
};
/// Runs `body`, turning an exception into a WorkerFailure.
template <class F>
std::optional<WorkerFailure> capture_failure(F&& body) {
  try {
    body();
    return std::nullopt;
  } catch (const RetryAfter& e) {
    return WorkerFailure{e.code(), e.what(), e.delay().count()};
  } catch (const Error& e) {
    return WorkerFailure{e.code(), e.what()};
  } catch (const std::exception& e) {
    return WorkerFailure{ErrorCode::Udf, e.what()};
  } catch (...) {
    return WorkerFailure{ErrorCode::Udf, "unknown exception (not derived from std::exception)"};
  }
}
/// Writes a Failed message for `failure` into `writer`.
void write_failure(MessageWriter& writer, const WorkerFailure& failure);

}  // namespace ember::process
