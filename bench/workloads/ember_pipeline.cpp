// The pipeline workload on ember, with the UDF (written to CSV) and without it (aggregated).
#include <filesystem>
#include <map>

#include "ember_workloads.h"
#include "ngram_embedding.h"
#include "output_digest.h"

namespace bench {

namespace {

ember::DataFrame filtered_projection(const WorkloadOptions& o) {
  using ember::col, ember::lit;
  ember::CsvOptions csv;
  csv.split_bytes = o.split_bytes;
  return ember::read_csv(o.input, csv)
      .where(col("x") < lit(kMaxX) && col("category") != lit(std::string(kSkippedCategory)))
      .select({col("id"), col("category"),
               (col("y") * lit(int64_t{2}) + lit(int64_t{1})).alias("z"), col("text")});
}

}  // namespace

RunReport ember_pipeline(const WorkloadOptions& o) {
  RunReport report{"ember", o.workload, {}, "{}", ""};
  auto embed = ember::Udf::cls<NgramEmbedding>("ngram_embedding")
                   .returns(ember::float64())
                   .batch_size(o.batch_size)
                   .concurrency(o.workers);
  auto df =
      filtered_projection(o)
          .with_column("score", embed(ember::col("text")))
          .select({ember::col("id"), ember::col("category"), ember::col("z"), ember::col("score")});
  ember::RunOptions run = run_options_for(o.workers, report.notes);
  run.threads = o.threads;
  report.times = time_runs(
      o.repeat, [&] { df.write_csv(o.out, {}, run); }, [&] { std::filesystem::remove_all(o.out); });
  report.check = digest_pipeline_output(o.out).to_json();
  return report;
}

RunReport ember_pipeline_noudf(const WorkloadOptions& o) {
  RunReport report{"ember", o.workload, {}, "{}", ""};
  auto df = filtered_projection(o).select({ember::col("category"), ember::col("z")});
  // category -> (count, sum z); transparent comparison: no string built per row.
  std::map<std::string, std::pair<int64_t, int64_t>, std::less<>> groups;
  report.times = time_runs(o.repeat, [&] {
    groups.clear();
    const ember::Table t = df.collect();
    for (const ember::Batch& b : t.batches()) {
      const ember::Column& cat = b.column(0);
      const ember::Column& z = b.column(1);
      for (int64_t i = 0; i < b.num_rows(); ++i) {
        const std::string_view c = cat.value<std::string_view>(i);
        auto it = groups.find(c);
        if (it == groups.end())
          it = groups.emplace(std::string(c), std::pair<int64_t, int64_t>{}).first;
        ++it->second.first;
        it->second.second += z.value<int64_t>(i);
      }
    }
  });
  std::string check;
  for (const auto& [cat, g] : groups)
    check += (check.empty() ? "" : ", ") + ("\"" + cat + ".count\": " + std::to_string(g.first)) +
             (", \"" + cat + ".sum_z\": " + std::to_string(g.second));
  report.check = "{" + check + "}";
  report.notes = "the group-by (count, sum z per category) runs in C++ over the collected result";
  return report;
}

}  // namespace bench
