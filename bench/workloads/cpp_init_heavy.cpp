// init-heavy by hand: partitions of an id range on a thread pool.
#include <memory>

#include "cpp_workloads.h"
#include "result_digest.h"
#include "slow_init_model.h"
#include "thread_pool_limit.h"

namespace bench {

const char* system_name(Strategy s) {
  return s == Strategy::Limit ? "cpp-limit" : "cpp-per-partition";
}

RunReport cpp_init_heavy(const WorkloadOptions& o, Strategy strategy) {
  RunReport report{system_name(strategy), o.workload, {}, "{}", ""};
  const ember::InitArgs args{{"init_ms", o.init_ms}};
  std::vector<int64_t> out;
  report.times = time_runs(o.repeat, [&] {
    out.assign(static_cast<size_t>(o.rows), 0);
    run_thread_pool(
        o.workers, o.partitions, strategy == Strategy::PerPartition,
        [&] { return std::make_unique<SlowInitModel>(args); },
        [&](const SlowInitModel&, int p) {
          const int64_t begin = o.rows * p / o.partitions, end = o.rows * (p + 1) / o.partitions;
          for (int64_t id = begin; id < end; ++id)
            out[static_cast<size_t>(id)] = SlowInitModel::mix(id);
        });
  });
  ResultDigest d;
  for (int64_t id = 0; id < o.rows; ++id)
    d.add(id, static_cast<double>(out[static_cast<size_t>(id)]));
  report.check = d.to_json();
  return report;
}

}  // namespace bench
