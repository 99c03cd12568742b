// The role of a sink that ends one pipeline and feeds the next (an aggregate, a limit, a
// repartition; a join build or a sort would be one too).
#pragma once

#include <memory>
#include <vector>

#include "exec/sink.h"
#include "plan/source.h"

namespace ember {

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
  /// With exchanges_partials(): how many leading columns of finalize()'s rows are keys that
  /// put them in order (each KeyOrder{}), each key once, so that the ranks' finalized shares
  /// can be cut into key ranges, one per rank (a write spread by key range); 0: they cannot.
  virtual int range_keys() const { return 0; }
};

}  // namespace ember
