/// \file
/// How a query runs: the resources it may use, its threads, its progress bar.
#pragma once

#include <chrono>
#include <cstdint>
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
};

}  // namespace ember
