// init-heavy on ember: every actor constructs its model once, whatever the partition count.
#include "ember_workloads.h"
#include "result_digest.h"
#include "slow_init_model.h"
#include "udf_stats_note.h"

namespace bench {

RunReport ember_init_heavy(const WorkloadOptions& o) {
  RunReport report{"ember", o.workload, {}, "{}", ""};
  auto model = ember::Udf::cls<SlowInitModel>("slow_init")
                   .returns(ember::int64())
                   .init_args({{"init_ms", o.init_ms}})
                   .batch_size(o.batch_size)
                   .concurrency(o.workers);
  auto df = ember::range(o.rows, o.partitions)
                .select({ember::col("id"), model(ember::col("id")).alias("y")});
  const ember::RunOptions run = run_options_for(o.workers, report.notes);
  ember::QueryResult result;
  report.times = time_runs(o.repeat, [&] { result = df.execute(run); });

  ResultDigest d;
  const ember::Column id = result.table.column("id"), y = result.table.column("y");
  for (int64_t i = 0; i < id.size(); ++i)
    d.add(id.value<int64_t>(i), static_cast<double>(y.value<int64_t>(i)));
  report.check = d.to_json();
  report.notes += udf_stats_note(result.stats);
  return report;
}

}  // namespace bench
