/// \file
/// How a query runs: the resources it may use, its threads, its progress bar.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

namespace ember {

/// What a machine (or an override) offers to a query.
struct Resources {
  double cpus = 0;           ///< CPUs; a fraction is allowed
  int gpus = 0;              ///< GPU devices
  int64_t memory_bytes = 0;  ///< memory in bytes
};

class Session;  // ember/session.h

/// How a query runs: what collect(), execute(), explain() and the write_* calls take.
struct RunOptions {
  /// Overrides detection (tests, or a user who wants to cap ember).
  std::optional<Resources> resources;
  /// Live progress bar on stderr (plain periodic lines when stderr is not a terminal).
  bool progress = false;
  /// Pipeline threads; 0 = the CPUs left after actor pools (at least 1).
  int threads = 0;
  /// Bytes a query's group-bys, sorts and join builds may hold before they spill to temporary
  /// files; 0 = a quarter of the machine's memory (or of resources->memory_bytes). The
  /// environment variable EMBER_MEMORY_BUDGET (bytes) overrides 0.
  int64_t memory_budget_bytes = 0;
  /// Borrow warm actors from this session, and leave them warm for the next query (see
  /// ember/session.h). Null: the query's actors live and die with it.
  Session* session = nullptr;
  /// A query whose actor pools do not fit in what other running queries leave free waits up
  /// to this long, behind earlier waiters, for them to release. 0: fail at once. A request
  /// larger than the machine has at all fails at once either way.
  std::chrono::milliseconds wait_for_resources{0};
  /// write_* only: keep a journal beside the staging directory (docs/resumable-jobs.md), so
  /// that a rerun of the same query to the same target after the process died keeps the
  /// output pieces that were finished and computes only the rest. InvalidArgument for a
  /// collect.
  bool resumable = false;
  /// With `resumable`: a running partition checkpoints its output at least every this many
  /// rows it reads (so every this many output rows or fewer when no operator makes rows, as
  /// explode does), each checkpoint a part file of its own (`part-NNNNN-CCCCC.parquet` and so on);
  /// a kill loses at most that much work per running partition. 0: one part file per partition,
  /// checkpointed when the partition ends. InvalidArgument when negative.
  int64_t checkpoint_rows = 0;
  /// With `resumable`: a journal left by a different query is thrown away and the write
  /// starts over, instead of being refused with InvalidArgument.
  bool discard_unfinished = false;
  /// Stops the query from outside: once any thread sets this flag, the query fails with
  /// ember::Error ("the query was cancelled") within about 50 ms, its actors and worker
  /// processes torn down as on any other failure (a write leaves its target untouched). The
  /// Python package sets it on Ctrl-C. Null: the query cannot be cancelled this way.
  std::shared_ptr<const std::atomic<bool>> cancel;
};

}  // namespace ember
