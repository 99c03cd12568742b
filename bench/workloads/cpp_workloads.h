// The workloads hand-written in C++ on a thread pool: the physical limit (one model per thread)
// and the naive strategy (one model per partition).
#pragma once

#include "run_report.h"
#include "workload_options.h"

namespace bench {

/// Which model lifetime the thread pool uses.
enum class Strategy { Limit, PerPartition };

/// `partitions` tasks over ids [0, rows), SlowInitModel::mix per row, results in one vector.
RunReport cpp_init_heavy(const WorkloadOptions& options, Strategy strategy);
/// Line ranges of the strings CSV, NgramEmbedding::score per row.
RunReport cpp_cpu_heavy(const WorkloadOptions& options, Strategy strategy);
/// One task per corpus file (simdjson), Speller::count_misspelled per document.
RunReport cpp_spellcheck(const WorkloadOptions& options, Strategy strategy);
/// Line ranges: parse, filter, project, score, write one part-NNNNN.csv per range.
RunReport cpp_pipeline(const WorkloadOptions& options, Strategy strategy);

/// "cpp-limit" or "cpp-per-partition".
const char* system_name(Strategy strategy);

}  // namespace bench
