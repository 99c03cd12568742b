// A resumable write after a breaker (group-by, sort, ...): the breaker's result, the input of
// the pipeline that ends in the write, saved beside the output's pieces so that a rerun after a
// kill loads it instead of running everything upstream again.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ember/query_stats.h"
#include "exec/physical_plan.h"
#include "io/output/output_journal.h"

namespace ember {

/// True when the pipeline that ends in the write reads a breaker's result and nothing else that
/// earlier pipelines built: its source is that result, with no join probe (whose hash table an
/// earlier pipeline builds) and no tails, and Arrow IPC can hold its columns (not the Null
/// type). Such a query saves the result once the breaker has
/// produced it, and a rerun that finds it saved resumes the write pipeline's pieces.
bool saves_breaker_result(const PhysicalPlan& physical);

/// Writes every partition of `result`, in order, into one Arrow IPC file in `staging_dir`
/// (fsynced and renamed into place) and returns what the journal records of it. Throws IoError.
/// The driver thread, once.
JournalBreakerResult save_breaker_result(const Source& result, const std::string& staging_dir);

/// The saved result as a source whose partition p is the one the saving run read as p.
std::shared_ptr<const Source> load_breaker_result(const std::string& staging_dir,
                                                  const JournalBreakerResult& saved);

/// Deletes the saved result's file from `staging_dir` (before the write commits, once the
/// journal is gone), if there is one. Never throws.
void remove_breaker_result(const std::string& staging_dir) noexcept;

/// The plan of a rerun that loads the saved result `saved`: the write pipeline alone, reading
/// it, with only the pools that pipeline calls (renumbered in order); `kept_pools[i]` is the
/// full plan's index of pool i. Nothing upstream runs, no pool of it starts.
PhysicalPlan write_pipeline_only(const PhysicalPlan& full, std::shared_ptr<const Source> saved,
                                 std::vector<size_t>& kept_pools);

/// Per pool of the full plan: the figures of `ran` (by kept_pools), or zero figures, named, for
/// a pool that did not run.
std::vector<UdfStats> full_plan_udf_stats(const PhysicalPlan& full, std::vector<UdfStats> ran,
                                          const std::vector<size_t>& kept_pools, int ranks);

}  // namespace ember
