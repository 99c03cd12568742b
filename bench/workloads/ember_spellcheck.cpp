// spellcheck on ember: the example's Speller over the WordNet corpus, one dictionary per actor.
#include "ember_workloads.h"
#include "result_digest.h"
#include "speller.h"
#include "udf_stats_note.h"

namespace bench {

RunReport ember_spellcheck(const WorkloadOptions& o) {
  RunReport report{"ember", o.workload, {}, "{}", ""};
  auto speller = ember::Udf::cls<spellcheck::Speller>("speller")
                     .returns(ember::int64())
                     .init_args({{"dict", std::string(spellcheck::kDefaultDictionary)}})
                     .batch_size(o.batch_size)
                     .concurrency(o.workers);
  auto df = ember::read_jsonl(o.input + "/*.jsonl")
                .select({ember::col("id"), speller(ember::col("text")).alias("typos")});
  const ember::RunOptions run = run_options_for(o.workers, report.notes);
  ember::QueryResult result;
  report.times = time_runs(o.repeat, [&] { result = df.execute(run); });

  ResultDigest d;
  const ember::Column id = result.table.column("id"), typos = result.table.column("typos");
  for (int64_t i = 0; i < id.size(); ++i) {
    const int64_t t = typos.value<int64_t>(i);
    d.add(id.value<int64_t>(i), static_cast<double>(t), t);
  }
  report.check = d.to_json();
  report.notes += udf_stats_note(result.stats);
  return report;
}

}  // namespace bench
