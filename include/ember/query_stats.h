// What a query reports about itself: per-UDF figures and totals, beside the result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/batch.h"

namespace ember {

/// Per-UDF figures for one query.
struct UdfStats {
  std::string name;
  int actors = 0;
  int64_t inits = 0, batches = 0, rows = 0;
  double init_seconds = 0, busy_seconds = 0;
  /// What the pool held for the query (totals over its actors).
  double held_cpus = 0, held_gpus = 0;
  int64_t held_memory_bytes = 0;
};

struct QueryStats {
  std::vector<UdfStats> udfs;
  double wall_seconds = 0;
  int64_t rows_out = 0;
};

/// What execute() returns: the collected table and the query's figures.
struct QueryResult {
  Table table;
  QueryStats stats;
};

}  // namespace ember
