// Shared pieces of the exec tests: int64 tables, a query context with real actor pools, and
// running one hand-built pipeline into a sink.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "ember/udf.h"
#include "exec/output_sink.h"
#include "exec/physical_plan.h"
#include "exec/pipeline_runner.h"
#include "exec/query_context.h"
#include "exec/sinks/collect_sink.h"
#include "exec/sources/table_source.h"
#include "udf/actor_pool.h"
#include "udf/udf_access.h"
#include "udf/udf_spec.h"

namespace ember::test {

inline Schema x_schema() { return Schema({{"x", int64()}}); }

/// Rows start..start+n-1 in column "x".
inline Batch numbers(int64_t start, int64_t n) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(start + i);
  return Batch(x_schema(), {Column::from(std::move(v))});
}

/// Every value of column `c`, batch after batch.
inline std::vector<int64_t> values(const Table& t, int c = 0) {
  std::vector<int64_t> out;
  for (const auto& b : t.batches())
    for (int64_t i = 0; i < b.num_rows(); ++i) out.push_back(b.column(c).value<int64_t>(i));
  return out;
}

inline std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(i);
  return v;
}

/// What the test UDF saw: the size and first value of each call, its threads, its teardown.
struct Seen {
  std::mutex mu;
  std::vector<int64_t> call_rows;
  std::set<std::thread::id> call_threads;
  std::atomic<int64_t> rows{0};
  void reset() {
    std::lock_guard lock(mu);
    call_rows.clear();
    call_threads.clear();
    rows = 0;
  }
};
inline Seen seen;

/// Returns x * 10. Init args: "slow_first" (ms; the earlier a chunk's first row, the longer
/// its call takes: results complete out of order).
class TimesTen {
 public:
  explicit TimesTen(const InitArgs& a) {
    if (a.has("slow_first")) slow_first_ = a.get<int64_t>("slow_first");
  }
  Column operator()(const Batch& in) {
    {
      std::lock_guard lock(seen.mu);
      seen.call_rows.push_back(in.num_rows());
      seen.call_threads.insert(std::this_thread::get_id());
    }
    seen.rows += in.num_rows();
    const Column& x = in.column(0);
    if (slow_first_ > 0) {
      int64_t delay = std::max<int64_t>(0, slow_first_ - x.value<int64_t>(0));
      std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    }
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(x.value<int64_t>(i) * 10);
    return Column::from(std::move(out));
  }

 private:
  int64_t slow_first_ = 0;
};

inline std::shared_ptr<const UdfSpec> times_ten(int actors, int64_t batch_size,
                                                InitArgs args = {}) {
  return detail::UdfAccess::spec(Udf::cls<TimesTen>("times_ten")
                                     .returns(int64())
                                     .concurrency(actors)
                                     .batch_size(batch_size)
                                     .init_args(std::move(args)));
}

/// A query's pools (started) and its context, as the executor makes them.
struct TestQuery {
  explicit TestQuery(const std::vector<std::shared_ptr<const UdfSpec>>& specs = {}) {
    for (const auto& s : specs)
      pools.push_back(std::make_unique<ActorPool>(s, std::vector<ActorContext>{}));
    for (auto& p : pools) p->start();
  }
  std::vector<std::unique_ptr<ActorPool>> pools;
  QueryContext query{pools};
};

/// Runs `pipeline` over `source` into `sink` and finalizes it; rethrows the query's error.
inline Table run_into(TestQuery& q, const Pipeline& pipeline, const Source& source,
                      const OutputSink& sink, int threads) {
  auto state = sink.global_state(source.num_partitions());
  run_pipeline(q.query, pipeline, source, sink, *state, threads);
  if (std::exception_ptr e = q.query.error()) std::rethrow_exception(e);
  return sink.finalize(*state);
}

}  // namespace ember::test
