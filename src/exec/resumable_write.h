// A resumable write (RunOptions::resumable): the identity of its query, the journal it keeps
// beside the staging directory, and what of the query can resume where.
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/query_stats.h"
#include "ember/run_options.h"
#include "exec/executor.h"
#include "exec/physical_plan.h"
#include "exec/relational/join_spill.h"
#include "exec/sinks/file_sink.h"
#include "io/output/output_journal.h"
#include "io/output/staged_output.h"
#include "plan/logical_node.h"

namespace ember {

/// InvalidArgument, before anything runs, for resumable options that cannot apply: a negative
/// checkpoint_rows, or `resumable` on a collect.
void check_resumable_options(const RunOptions& options, const QueryOutput& out);

/// True when the query's output pieces can be kept across runs: the pipeline that writes runs
/// from a scan to the output, so a partition's rows come in the same order every run, probing
/// at most the hash tables of inner, left, semi or anti joins that earlier pipelines build (a
/// probe row's matches are the same set whichever order the build inserted them in, and all of
/// them are out before a checkpoint); or the write pipeline reads a breaker's result that the
/// run saves (saves_breaker_result), so a rerun reads the same rows in the same order.
/// Otherwise a rerun computes everything again.
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
  /// The write pipeline's source partitions; the joins' spilled ranges come after them.
  int kept_below = std::numeric_limits<int>::max();
  /// The spills of the joins the write pipeline probes: once one has spilled, this run's
  /// pieces are not journaled (see PieceJournal::journals).
  std::vector<std::shared_ptr<JoinSpill>> spills = {};

  PieceJournal pieces() {
    PieceJournal p{&journal.recovered(), [j = &journal](const JournalPiece& x) { j->append(x); },
                   checkpoint_rows, kept_below, nullptr};
    if (!spills.empty())
      p.journals = [s = spills] {
        for (const auto& spill : s)
          if (spill->spilled()) return false;
        return true;
      };
    return p;
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
