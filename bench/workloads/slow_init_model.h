// The init-heavy workload: a UDF whose constructor costs ~200 ms and whose rows cost almost
// nothing.
#pragma once

#include <cstdint>

#include "ember/ember.h"

namespace bench {

/// Init args: "init_ms" (default 200). The constructor sleeps that long, standing in for a model
/// load that waits on disk or network (a sleep, not a computation, so that the cost does not
/// depend on how busy the shared CPUs are). Argument: int64; result: int64 `mix(x)`.
class SlowInitModel {
 public:
  explicit SlowInitModel(const ember::InitArgs& args);
  /// A few nanoseconds of integer mixing (SplitMix64's finaliser, reduced to 20 bits).
  static int64_t mix(int64_t x);
  ember::Column operator()(const ember::Batch& args) const;
};

}  // namespace bench
