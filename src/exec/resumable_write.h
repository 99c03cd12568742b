// A resumable write (RunOptions::resumable): the identity of its query, the journal it keeps
// beside the staging directory, and what of the query can resume where.
#pragma once

#include <optional>
#include <string>

#include "ember/query_stats.h"
#include "ember/run_options.h"
#include "exec/executor.h"
#include "exec/physical_plan.h"
#include "exec/sinks/file_sink.h"
#include "io/output/output_journal.h"
#include "io/output/staged_output.h"
#include "plan/logical_node.h"

namespace ember {

/// InvalidArgument, before anything runs, for resumable options that cannot apply: a negative
/// checkpoint_rows, or `resumable` on a collect.
void check_resumable_options(const RunOptions& options, const QueryOutput& out);

/// True when the query's output pieces can be kept across runs: its only pipeline runs from a
/// scan to the output, so a partition's rows come in the same order every run; or the write
/// pipeline reads a breaker's result that the run saves (saves_breaker_result), so a rerun
/// reads the same rows in the same order. Otherwise a rerun computes everything again.
bool resumes_pieces(const PhysicalPlan& physical);

/// What makes a rerun the same query: a hash of the optimized plan's text, the output format
/// and its options, checkpoint_rows, each stateful UDF's name, class and init args, and each
/// input file's size and modification time.
JournalIdentity query_identity(const LogicalNode& optimized, const PhysicalPlan& physical,
                               const QueryOutput& out, const RunOptions& options);

/// The journal of a resumable write, opened on `staged` (StagedOutput::open_resumable), and
/// how the file sink uses it.
struct ResumableWrite {
  OutputJournal journal;
  int64_t checkpoint_rows = 0;
  /// What the earlier runs finished that this one keeps (QueryStats).
  int64_t resumed_partitions = 0, resumed_rows = 0;

  PieceJournal pieces() {
    return {&journal.recovered(), [j = &journal](const JournalPiece& p) { j->append(p); },
            checkpoint_rows};
  }
};

/// Locks and opens the journal of `staged` for this query (see OutputJournal::open): pieces
/// (and a saved breaker result) an earlier run of it finished are kept when
/// resumes_pieces(physical).
ResumableWrite open_resumable_write(const StagedOutput& staged, const LogicalNode& optimized,
                                    const PhysicalPlan& physical, const QueryOutput& out,
                                    const RunOptions& options);

/// explain()'s section on a resumable write: where the query resumes, and the stateful UDFs
/// it assumes deterministic.
std::string explain_resumable(const PhysicalPlan& physical, const RunOptions& options);

}  // namespace ember
