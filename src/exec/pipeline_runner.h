// Runs one pipeline's partitions on a fixed pool of threads.
#pragma once

#include "exec/partition_supply.h"
#include "exec/physical_plan.h"
#include "exec/query_context.h"
#include "exec/sink.h"

namespace ember {

/// Runs every partition of `source` through `pipeline` into `sink` (whose state for this run is
/// `sink_state`), at most a bounded number of partitions at a time (in partition order), so
/// memory stays bounded for streaming sinks. Call on the query's driver thread: it waits here,
/// and when the query fails it cancels the pools here, not on a pipeline thread. Returns when
/// all partitions are done, the sink is satisfied, or the query was cancelled (then
/// query.error() holds why); never leaves work in flight behind it.
/// With `partitions`, only those partitions of `source` run (ascending; the sink's state still
/// spans all of them). Adds the partitions it runs to query.partitions_total.
void run_pipeline(QueryContext& query, const Pipeline& pipeline, const Source& source,
                  const Sink& sink, GlobalSinkState& sink_state, int threads,
                  const std::vector<int>* partitions = nullptr);

/// The same, for the partitions `supply` gives, in the order it gives them, started as the run
/// has room for them (the cluster runner hands a pipeline's partitions to its ranks as they
/// ask). Returns once the supply is exhausted and its partitions have ended, or as above. The
/// caller counts query.partitions_total (a supply may not know how many it will give).
void run_pipeline(QueryContext& query, const Pipeline& pipeline, const Source& source,
                  const Sink& sink, GlobalSinkState& sink_state, int threads,
                  PartitionSupply& supply);

/// The partitions a sink state for `pipeline` spans: `source`'s, then each tail's.
int pipeline_partitions(const Pipeline& pipeline, const Source& source);

/// run_pipeline over each of the pipeline's tails in order (unless the query failed or the sink
/// is satisfied): a tail's rows enter past its operator, into the same sink state, numbered
/// after `source`'s partitions and the tails' before them.
void run_tails(QueryContext& query, const Pipeline& pipeline, const Source& source,
               const Sink& sink, GlobalSinkState& sink_state, int threads);

/// run_pipeline over every partition of `source`, then over each of the pipeline's tails in
/// order (unless the query failed or the sink is satisfied): a tail's rows enter past its
/// operator, into the same sink state, numbered after the partitions before them.
void run_pipeline_and_tails(QueryContext& query, const Pipeline& pipeline, const Source& source,
                            const Sink& sink, GlobalSinkState& sink_state, int threads);

}  // namespace ember
