// The workloads as ember queries. Each runs `options.repeat` times and reports its timings and
// a result check.
#pragma once

#include "ember/ember.h"
#include "run_report.h"
#include "workload_options.h"

namespace bench {

/// range(rows, partitions) -> SlowInitModel(id) with `workers` actors.
RunReport ember_init_heavy(const WorkloadOptions& options);
/// read_csv(strings) -> NgramEmbedding(text) with `workers` actors.
RunReport ember_cpu_heavy(const WorkloadOptions& options);
/// read_jsonl(corpus/*.jsonl) -> spellcheck::Speller(text) with `workers` actors.
RunReport ember_spellcheck(const WorkloadOptions& options);
/// read_csv -> where -> select -> NgramEmbedding(text) -> write_csv(out).
RunReport ember_pipeline(const WorkloadOptions& options);
/// read_csv -> where -> select -> collect, then a group-by in C++ (ember has no aggregate).
RunReport ember_pipeline_noudf(const WorkloadOptions& options);

/// Run options for `actors` actors of one CPU each: when that is more than the machine has, the
/// CPUs are overridden (and `notes` says so) so that a scaling sweep can oversubscribe.
ember::RunOptions run_options_for(int actors, std::string& notes);

}  // namespace bench
