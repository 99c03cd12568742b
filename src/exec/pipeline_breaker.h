// The role of a sink that ends one pipeline and feeds the next (an aggregate, a limit, a
// repartition; a join build or a sort would be one too).
#pragma once

#include <memory>

#include "exec/sink.h"
#include "plan/source.h"

namespace ember {

/// A sink whose gathered rows become the source of the next pipeline.
class PipelineBreaker : public Sink {
 public:
  /// After every partition ended without error, on the driver thread: the next pipeline's
  /// source. Called once per global state.
  virtual std::shared_ptr<const Source> finalize(GlobalSinkState& global) const = 0;
};

}  // namespace ember
