// cpu-heavy on ember: a CSV of strings through the n-gram embedding actors.
#include "ember_workloads.h"
#include "ngram_embedding.h"
#include "result_digest.h"
#include "udf_stats_note.h"

namespace bench {

RunReport ember_cpu_heavy(const WorkloadOptions& o) {
  RunReport report{"ember", o.workload, {}, "{}", ""};
  auto embed = ember::Udf::cls<NgramEmbedding>("ngram_embedding")
                   .returns(ember::float64())
                   .batch_size(o.batch_size)
                   .concurrency(o.workers);
  ember::CsvOptions csv;
  csv.split_bytes = o.split_bytes;
  auto df = ember::read_csv(o.input, csv)
                .select({ember::col("id"), embed(ember::col("text")).alias("score")});
  ember::RunOptions run = run_options_for(o.workers, report.notes);
  run.threads = o.threads;
  ember::QueryResult result;
  report.times = time_runs(o.repeat, [&] { result = df.execute(run); });

  ResultDigest d;
  const ember::Column id = result.table.column("id"), score = result.table.column("score");
  for (int64_t i = 0; i < id.size(); ++i) d.add(id.value<int64_t>(i), score.value<double>(i));
  report.check = d.to_json();
  report.notes += udf_stats_note(result.stats);
  return report;
}

}  // namespace bench
