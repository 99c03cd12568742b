// The role of a sink that ends one pipeline and feeds the next (an aggregate, a limit, a
// repartition; a join build or a sort would be one too).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "exec/relational/row_order.h"
#include "exec/sink.h"
#include "plan/source.h"

namespace ember {

/// The key columns rows are ordered by (a write spread by key range).
struct RangeKeys {
  std::vector<int> columns;     ///< of the rows
  std::vector<KeyOrder> order;  ///< one per column
};

/// Rows in key order; merged with others, ties go to the run of the lower tag.
struct TaggedRun {
  int64_t tag = 0;
  Batch rows;
};

/// A sink whose gathered rows become the source of the next pipeline.
class PipelineBreaker : public Sink {
 public:
  /// After every partition ended without error, on the driver thread: the next pipeline's
  /// source. Called once per global state.
  virtual std::shared_ptr<const Source> finalize(GlobalSinkState& global) const = 0;
  /// With exchanges_partials(), instead of finalize() where the partial states were exchanged:
  /// `global` holds this rank's share of the keys, `others` the other ranks' shares as each
  /// finalized them (finalize()'s rows, read in order); the next pipeline reads them all as
  /// finalize() would have read one state holding every key.
  virtual std::shared_ptr<const Source> finalize_shares(GlobalSinkState& global,
                                                        std::vector<Batch> others) const {
    (void)global, (void)others;
    throw Error("internal: this breaker exchanges no partial states");
  }
  /// The columns of finalize()'s rows that put them in order, and how, when the rows each rank
  /// holds at the end (key_runs) can be cut into key ranges, one per rank, and merged again
  /// (a write spread by key range); nullopt when they cannot.
  virtual std::optional<RangeKeys> range_keys() const { return std::nullopt; }
  /// With range_keys(), once every partition that runs into `global` has ended: its rows as
  /// runs in key order, each tagged so that, merged, ties go to the lower tag (the input
  /// order). Spends the state.
  virtual std::vector<TaggedRun> key_runs(GlobalSinkState& global) const {
    (void)global;
    throw Error("internal: this breaker's rows cannot be cut into key ranges");
  }
};

}  // namespace ember
