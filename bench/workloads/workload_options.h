// Command-line settings shared by the ember runner and the C++ baseline runner.
#pragma once

#include <cstdint>
#include <string>

namespace bench {

/// The pipeline workload's query: scan -> where(x < kMaxX && category != kSkippedCategory) ->
/// select(id, category, z = y * 2 + 1, text) -> [score = ngram(text)] -> write or aggregate.
inline constexpr double kMaxX = 0.3;
inline constexpr const char* kSkippedCategory = "cat_03";

/// What one runner invocation does. Workloads: init-heavy, cpu-heavy, spellcheck, pipeline,
/// pipeline-noudf.
struct WorkloadOptions {
  std::string workload;
  std::string input;  ///< a CSV file, or the spellcheck corpus directory
  std::string out;    ///< pipeline: output directory
  int repeat = 3;
  int workers = 2;         ///< actors (ember) or threads (baselines)
  int threads = 0;         ///< ember's pipeline threads (0: its default, the CPUs left)
  int partitions = 64;     ///< init-heavy: partitions of the range
  int64_t rows = 1 << 20;  ///< init-heavy: rows of the range
  int64_t init_ms = 200;   ///< init-heavy: constructor cost
  int64_t batch_size = 4096;
  int64_t split_bytes = int64_t{16} << 20;  ///< CSV byte range per partition / task
};

}  // namespace bench
