// The role of the sink at the end of a query: collect its rows, or write them out.
#pragma once

#include "ember/batch.h"
#include "exec/sink.h"

namespace ember {

/// The sink of a query's last pipeline.
class OutputSink : public Sink {
 public:
  /// After every partition ended without error, on the driver thread: the query's table (no
  /// rows for a sink that writes files). Throws when the output is incomplete and must not be
  /// committed. Called once per global state.
  virtual Table finalize(GlobalSinkState& global) const = 0;
  /// The bytes of the files this sink wrote here (none for a sink that collects).
  virtual int64_t bytes_written(const GlobalSinkState& global) const {
    (void)global;
    return 0;
  }
};

}  // namespace ember
