// Binding WorkloadOptions to CLI11.
#include "workload_cli.h"

namespace bench {

void add_workload_options(CLI::App& app, WorkloadOptions& o) {
  app.add_option("--workload", o.workload,
                 "init-heavy, cpu-heavy, spellcheck, pipeline, pipeline-noudf")
      ->required()
      ->check(
          CLI::IsMember({"init-heavy", "cpu-heavy", "spellcheck", "pipeline", "pipeline-noudf"}));
  app.add_option("--input", o.input, "input CSV file, or the spellcheck corpus directory");
  app.add_option("--out", o.out, "pipeline: output directory (replaced on every run)");
  app.add_option("--repeat", o.repeat, "timed runs")->check(CLI::PositiveNumber);
  app.add_option("--workers", o.workers, "actors or threads")->check(CLI::PositiveNumber);
  app.add_option("--threads", o.threads, "ember: pipeline threads (0: the CPUs actors leave)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--partitions", o.partitions, "init-heavy: partitions")
      ->check(CLI::PositiveNumber);
  app.add_option("--rows", o.rows, "init-heavy: rows")->check(CLI::PositiveNumber);
  app.add_option("--init-ms", o.init_ms, "init-heavy: constructor milliseconds")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--batch-size", o.batch_size, "rows per UDF call")->check(CLI::PositiveNumber);
  app.add_option("--split-bytes", o.split_bytes, "CSV bytes per partition or task")
      ->check(CLI::PositiveNumber);
}

}  // namespace bench
