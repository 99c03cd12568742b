// A resumable write after a group-by, killed on 3 ranks in the pipeline that writes (once the
// group-by's result is saved and 2 pieces are journaled) and resumed on another number of ranks:
// the rerun loads the saved result, runs nothing before the group-by, and keeps the pieces.
#include <ember/ember.h>

#include <filesystem>
#include <iostream>
#include <numeric>

#include "scenarios.h"
#include "udfs.h"

namespace cluster_app {

namespace {

constexpr int64_t kRows = 6000;

/// ids through "triple" (before the group-by), summed by id % 600 into 6 partitions, then
/// through the "doomed" UDF into `out`.
ember::QueryResult run_breaker_job(const fs::path& root, const fs::path& out, bool resumable) {
  auto triple = ember::Udf::cls<Triple>("triple").returns(ember::int64()).concurrency(3);
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
  return ember::read_parquet((root / "in" / "*.parquet").string())
      .with_column("u", triple(ember::col("id")))
      .group_by(std::vector<ember::Expr>{(ember::col("id") % 600).alias("k")})
      .agg({ember::col("u").sum().alias("s")})
      .repartition(6)
      .with_column("t", doomed(ember::col("s")))
      .write_parquet(out.string(), {}, run);
}

std::string all_rows(const fs::path& dir) {
  return ember::read_parquet((dir / "*.parquet").string()).collect().to_string(kRows + 1);
}

}  // namespace

int resume_breaker(const fs::path& base) {
  const fs::path root = base / "breaker";
  if (!fs::exists(root / "in")) {  // written once: a rewritten input is another query's
    ember::ParquetWriteOptions groups;
    groups.row_group_rows = 500;
    ember::range(kRows, 1).write_parquet((root / "in").string(), groups);
  }
  const ember::QueryStats s = run_breaker_job(root, root / "out", true).stats;
  const ember::UdfStats& before = s.udfs.at(0);
  const int64_t inits =
      std::accumulate(before.inits_per_rank.begin(), before.inits_per_rank.end(), int64_t{0});
  std::cout << "breaker job on " << s.ranks.size() << " rank(s): resumed partitions "
            << s.resumed_partitions << ", resumed rows " << s.resumed_rows << ", rows out "
            << s.rows_out << "; the UDF before the group-by: " << before.rows << " rows, " << inits
            << " inits\n";
  run_breaker_job(root, root / "reference", false);  // uninterrupted, from scratch
  const bool same = all_rows(root / "out") == all_rows(root / "reference");
  std::cout << "breaker output " << (same ? "equals" : "DIFFERS FROM")
            << " an uninterrupted run's\n";
  std::cout << "breaker staging left: "
            << (fs::exists(root / ".out.ember-resume") ||
                        fs::exists(root / ".out.ember-resume.journal")
                    ? "yes"
                    : "none")
            << "\n";
  return same ? 0 : 1;
}

}  // namespace cluster_app
