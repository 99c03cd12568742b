// The join buckets a worker rank keeps between the pipelines of one query: each side of a join
// run as a hash exchange ends on every rank in its buckets (ShuffleSink), kept here under the
// side's exchange (its spread's id) until the pipeline that joins them has run and rank 0 says
// to forget them (Op::Forget).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "exec/sinks/shuffle_sink.h"

namespace ember::dist {

class KeptBuckets {
 public:
  /// The side exchanged under spread `id` ended here in `buckets`.
  void keep(uint64_t id, std::shared_ptr<const JoinBuckets> buckets);
  /// What keep() left under `id`; Error when nothing is kept (the exchange did not end here).
  std::shared_ptr<const JoinBuckets> find(uint64_t id) const;
  /// Idempotent.
  void forget(uint64_t id);

 private:
  mutable std::mutex mu_;
  std::map<uint64_t, std::shared_ptr<const JoinBuckets>> kept_;  // guarded by mu_
};

}  // namespace ember::dist
