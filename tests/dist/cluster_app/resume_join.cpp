// A resumable write whose pipeline probes a join, killed on 3 ranks (once 2 pieces are
// journaled) and resumed on another number of ranks: every rank builds the join's small right
// side again, the probe side keeps the partitions the killed run finished, and the output
// equals an uninterrupted run's.
#include <ember/ember.h>

#include <filesystem>
#include <iostream>

#include "scenarios.h"
#include "udfs.h"

namespace cluster_app {

namespace {

constexpr int64_t kRows = 6000;

/// ids with k = id % 400, joined with (k, w = 7k) for k below 300, then w through the "doomed"
/// UDF into `out`: 4,500 rows.
ember::QueryResult run_join_job(const fs::path& root, const fs::path& out, bool resumable) {
  auto doomed = ember::Udf::cls<Doomed>("doomed")
                    .returns(ember::int64())
                    .init_args({{"journal", (root / ".out.ember-resume.journal").string()},
                                {"pieces", int64_t{2}},
                                {"ms", int64_t{50}},
                                {"stall_until_requeued", false}})
                    .batch_size(20)
                    .concurrency(3);
  ember::RunOptions run;
  run.resumable = resumable;
  auto right =
      ember::range(300, 1).select({ember::col("id").alias("k"), (ember::col("id") * 7).alias("w")});
  return ember::read_parquet((root / "in" / "*.parquet").string())
      .with_column("k", ember::col("id") % 400)
      .join(right, {"k"})
      .with_column("t", doomed(ember::col("w")))
      .write_parquet(out.string(), {}, run);
}

std::string sorted_rows(const fs::path& dir) {
  return ember::read_parquet((dir / "*.parquet").string())
      .sort({ember::SortKey{ember::col("id")}})
      .collect()
      .to_string(kRows + 1);
}

}  // namespace

int resume_join(const fs::path& base) {
  const fs::path root = base / "join";
  if (!fs::exists(root / "in")) {  // written once: a rewritten input is another query's
    ember::ParquetWriteOptions groups;
    groups.row_group_rows = 500;
    ember::range(kRows, 1).write_parquet((root / "in").string(), groups);
  }
  const ember::QueryStats s = run_join_job(root, root / "out", true).stats;
  std::cout << "join job on " << s.ranks.size() << " rank(s): resumed partitions "
            << s.resumed_partitions << ", resumed rows " << s.resumed_rows << ", rows out "
            << s.rows_out << "\n";
  run_join_job(root, root / "reference", false);  // uninterrupted, from scratch
  const bool same = sorted_rows(root / "out") == sorted_rows(root / "reference");
  std::cout << "join output " << (same ? "equals" : "DIFFERS FROM") << " an uninterrupted run's\n";
  std::cout << "join staging left: "
            << (fs::exists(root / ".out.ember-resume") ||
                        fs::exists(root / ".out.ember-resume.journal")
                    ? "yes"
                    : "none")
            << "\n";
  return same ? 0 : 1;
}

}  // namespace cluster_app
