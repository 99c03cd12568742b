// The stateful UDFs the actor benchmarks run: they do (almost) nothing, so what is measured is
// the cost of getting a batch to an actor and its result back.
#pragma once

#include <cstring>
#include <vector>

#include "ember/batch.h"
#include "ember/udf.h"

namespace ember::bench {

/// Returns its argument column itself.
class Identity {
 public:
  explicit Identity(const InitArgs&) {}
  Column operator()(const Batch& in) { return in.column(0); }
};

/// Returns a fresh copy of its int64 argument: an identity that, like a real UDF, produces a
/// new result buffer.
class CopyIdentity {
 public:
  explicit CopyIdentity(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const Column& x = in.column(0);
    std::vector<int64_t> v(static_cast<size_t>(x.size()));
    if (!v.empty()) std::memcpy(v.data(), x.values<int64_t>(), v.size() * sizeof(int64_t));
    return Column::from(std::move(v));
  }
};

}  // namespace ember::bench
