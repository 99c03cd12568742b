// A resumable write that a test kills on one number of ranks and resumes on another, or that Slurm
// requeues part-way.
#include <ember/ember.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "scenarios.h"
#include "udfs.h"

namespace cluster_app {

namespace {

constexpr int64_t kRows = 12000;
constexpr int64_t kRowsPerPartition = 500;  // a row group each: 24 partitions

/// Rows between checkpoints: EMBER_TEST_RESUME_CHECKPOINT_ROWS (the same in every run of a job),
/// or none.
int64_t checkpoint_rows() {
  const char* rows = std::getenv("EMBER_TEST_RESUME_CHECKPOINT_ROWS");
  return rows && *rows ? std::atoll(rows) : 0;
}

/// The job: the input through the "doomed" UDF into `out` (Parquet), resumable or not; `slurm`:
/// its first run under Slurm waits to be requeued once 3 pieces are journaled.
ember::QueryResult run_job(const fs::path& root, const fs::path& out, bool resumable, bool slurm) {
  auto doomed = ember::Udf::cls<Doomed>("doomed")
                    .returns(ember::int64())
                    .init_args({{"journal", (root / ".out.ember-resume.journal").string()},
                                {"pieces", int64_t{3}},
                                {"ms", int64_t{50}},
                                {"stall_until_requeued", slurm}})
                    .batch_size(100)
                    .concurrency(3);
  ember::RunOptions run;
  run.resumable = resumable;
  if (resumable) run.checkpoint_rows = checkpoint_rows();
  return ember::read_parquet((root / "in" / "*.parquet").string())
      .with_column("y", doomed(ember::col("id")))
      .write_parquet(out.string(), {}, run);
}

/// Every row of the Parquet files under `dir`, in id order.
std::string sorted_rows(const fs::path& dir) {
  return ember::read_parquet((dir / "*.parquet").string())
      .sort({{ember::col("id")}})
      .execute()
      .table.to_string(kRows + 1);
}

}  // namespace

int resume(const fs::path& base, bool slurm) {
  const fs::path root = base / (slurm ? "slurm" : "resume");
  if (!fs::exists(root / "in")) {  // written once: a rewritten input is another query's
    ember::ParquetWriteOptions groups;
    groups.row_group_rows = kRowsPerPartition;
    ember::range(kRows, 1)
        .with_column("v", ember::col("id") * 7)
        .write_parquet((root / "in").string(), groups);
  }
  const ember::QueryResult r = run_job(root, root / "out", true, slurm);
  const ember::QueryStats& s = r.stats;
  std::cout << "resumable job on " << s.ranks.size() << " rank(s): resumed partitions "
            << s.resumed_partitions << ", resumed rows " << s.resumed_rows << ", rows out "
            << s.rows_out << "\n";
  if (checkpoint_rows() == 0) {
    std::cout << "resumed rows "
              << (s.resumed_rows == s.resumed_partitions * kRowsPerPartition
                      ? "are the resumed partitions' rows"
                      : "DO NOT MATCH the resumed partitions")
              << "\n";
  } else {  // checkpoints of unfinished partitions are kept too, a whole number of them each
    std::cout << "resumed rows "
              << (s.resumed_rows >= s.resumed_partitions * kRowsPerPartition &&
                          s.resumed_rows % checkpoint_rows() == 0
                      ? "are the resumed partitions' and checkpoints' rows"
                      : "DO NOT MATCH the resumed partitions and checkpoints")
              << "\n";
  }
  int files = 0;
  for (const auto& f : fs::directory_iterator(root / "out"))
    files += f.path().extension() == ".parquet";
  run_job(root, root / "reference", false, false);  // uninterrupted, from scratch
  const std::string got = sorted_rows(root / "out");
  const bool same = got == sorted_rows(root / "reference");
  std::cout << "output " << (same ? "equals" : "DIFFERS FROM")
            << " an uninterrupted run's: " << files << " files, " << s.rows_out << " rows\n";
  std::cout << "staging left: "
            << (fs::exists(root / ".out.ember-resume") ||
                        fs::exists(root / ".out.ember-resume.journal")
                    ? "yes"
                    : "none")
            << "\n";
  return same ? 0 : 1;
}

}  // namespace cluster_app
