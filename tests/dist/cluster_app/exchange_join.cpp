// Joins the cluster runs as a hash exchange of both sides (a right side too large for every
// rank to read whole, or one that calls a UDF; EMBER_DIST_BROADCAST_JOIN_BYTES=0 makes every
// join that can be one). `exchange_joins` prints each result's rows sorted, so that
// cluster_test.sh's `same` compares them with the local executor's as multisets (a join's
// output order is the buckets' on a cluster); `exchange_join_spread` says where the work ran.
#include <ember/ember.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "kit.h"
#include "scenarios.h"

namespace cluster_app {

namespace fs = std::filesystem;

namespace {

/// `table`'s rows as to_string() lays them out, the header first, then the rows sorted.
std::string sorted_rows(const ember::Table& table) {
  std::istringstream in(table.to_string(1 << 22));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const auto rows = lines.begin() + std::min<std::ptrdiff_t>(3, std::ssize(lines));
  std::sort(rows, lines.end());
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

/// The Parquet input: the CSV inputs (x with nulls, name) as 12 row groups of 100 rows.
std::string parquet_input(const fs::path& dir) {
  write_inputs(dir);
  ember::ParquetWriteOptions groups;
  groups.row_group_rows = 100;
  ember::read_csv((dir / "csv" / "*.csv").string())
      .write_parquet((dir / "parquet").string(), groups);
  return (dir / "parquet" / "*.parquet").string();
}

/// Each right key five times (skew), keys every 50 of x's values.
ember::DataFrame dimension() {
  return ember::range(40, 2)
      .with_column("x", (ember::col("id") % 8) * 50)
      .with_column("w", ember::col("id"))
      .select({ember::col("x"), ember::col("w")});
}

}  // namespace

int exchange_joins(const fs::path& dir) {
  const std::string parquet = parquet_input(dir);
  bool ok = true;
  auto show = [&](const char* name, const ember::QueryResult& r) {
    std::cout << "== " << name << "\n" << sorted_rows(r.table) << "\n";
    ok = check_stats(r.stats, name) && ok;
  };
  const auto x = ember::col("x");
  // Every join type, null keys on the left, skewed keys on the right.
  const std::pair<ember::JoinType, const char*> types[] = {
      {ember::JoinType::Inner, "inner"}, {ember::JoinType::Left, "left"},
      {ember::JoinType::Right, "right"}, {ember::JoinType::Full, "full"},
      {ember::JoinType::Semi, "semi"},   {ember::JoinType::Anti, "anti"}};
  for (const auto& [type, name] : types)
    show(name, ember::read_parquet(parquet)
                   .with_column("y", triple(3)(x))
                   .join(dimension(), {"x"}, type)
                   .execute());
  // A right side that calls a UDF (every rank cannot read it whole), and a UDF after the join.
  show("udf on both sides",
       ember::read_parquet(parquet)
           .where(x % 3 != 0)
           .join(dimension().with_column("v", triple(2)(ember::col("w"))), {"x"})
           .with_column("t", triple(3)(ember::col("v")))
           .execute());
  // The chain: Parquet -> filter -> UDF -> join -> group-by -> sort -> Parquet.
  const auto labels = ember::range(7, 1)
                          .with_column("bucket", ember::col("id"))
                          .with_column("label", ember::col("id") * 100)
                          .select({ember::col("bucket"), ember::col("label")});
  ember::read_parquet(parquet)
      .where(x % 5 != 0)
      .with_column("y", triple(3)(x))
      .with_column("bucket", x % 7)
      .join(labels, {"bucket"})
      .group_by({"label"})
      .agg({ember::col("y").sum().alias("total"), ember::col("y").max().alias("top")})
      .sort({{ember::col("total"), true}})
      .write_parquet((dir / "chain").string());
  show("chain written", ember::read_parquet((dir / "chain" / "*.parquet").string()).execute());
  // Many rows on both sides, written by the ranks that join them.
  ember::range(60000, 6)
      .with_column("k", ember::col("id") % 7000)
      .join(ember::range(14000, 4)
                .with_column("k", ember::col("id") % 7000)
                .select({ember::col("k"), (ember::col("id") * 3).alias("r")}),
            {"k"})
      .write_parquet((dir / "many").string());
  show("many rows written",
       ember::read_parquet((dir / "many" / "*.parquet").string())
           .agg({ember::col("id").count().alias("n"), ember::col("r").sum().alias("rs"),
                 ember::col("id").sum().alias("ids")})
           .execute());
  return ok ? 0 : 1;
}

int exchange_join_spread(const fs::path& dir) {
  const std::string parquet = parquet_input(dir);
  const auto query = ember::read_parquet(parquet)
                         .with_column("y", triple(3)(ember::col("x")))
                         .join(dimension(), {"x"}, ember::JoinType::Full);
  std::cout << "explain:" << explain_line(query.explain()) << "\n";
  const ember::QueryResult r = query.execute();
  bool every = r.stats.ranks.size() > 1;
  for (const ember::RankStats& s : r.stats.ranks)
    every = every && s.rows_shuffled_in > 0 && s.rows_shuffled_out > 0 && s.partitions > 0;
  std::cout << "full join by exchange: " << r.table.num_rows() << " rows, "
            << (every ? "every rank" : "NOT every rank") << " ran partitions and shuffled rows\n";
  // A UDF that fails on rank 2, in a side being exchanged and after the join: each query fails
  // naming the rank, writes nothing, and the next query runs (no rank hangs).
  const auto x = ember::col("x");
  const auto failing = triple(3, {{"fail", "call@2"}});
  const std::pair<const char*, ember::DataFrame> fails[] = {
      {"in a side",
       ember::read_parquet(parquet).with_column("y", failing(x)).join(dimension(), {"x"})},
      {"after the join",
       ember::read_parquet(parquet).join(dimension(), {"x"}).with_column("y", failing(x))}};
  for (const auto& [where, failed] : fails) {
    try {
      failed.write_parquet((dir / "failed").string());
      std::cout << "a failure " << where << ": no error\n";
      every = false;
    } catch (const ember::UdfError& e) {
      std::cout << "a failure " << where << ": UdfError: " << e.what() << "\n";
    }
    std::cout << "a failure " << where << " wrote "
              << (fs::exists(dir / "failed") ? "files" : "nothing") << "\n";
  }
  const ember::QueryResult next = ember::read_parquet(parquet).join(dimension(), {"x"}).execute();
  std::cout << "next query: " << next.table.num_rows() << " rows\n";
  return every ? 0 : 1;
}

}  // namespace cluster_app
