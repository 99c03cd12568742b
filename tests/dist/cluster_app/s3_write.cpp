// A write to an S3-compatible server on every rank: each rank uploads its own partitions'
// parts, rank 0 completes them all at commit; a write that fails on a rank leaves the previous
// output whole. The server's endpoint and keys come from the environment (cluster_test.sh s3).
#include <ember/ember.h>

#include <iostream>
#include <string>
#include <vector>

#include "kit.h"
#include "scenarios.h"

namespace cluster_app {

namespace {

constexpr const char* kTarget = "s3://data/out/";

/// Which of part-00000.csv .. part-00007.csv and _SUCCESS exist under kTarget, as a line of
/// names (fetched through url_download, whose missing objects are nulls).
std::string listing() {
  std::vector<std::string> names;
  for (int p = 0; p < 8; ++p) names.push_back("part-0000" + std::to_string(p) + ".csv");
  names.push_back("_SUCCESS");
  std::vector<std::string> urls;
  for (const std::string& n : names) urls.push_back(kTarget + n);
  ember::Table t(
      ember::Schema({{"url", ember::utf8()}}),
      {ember::Batch(ember::Schema({{"url", ember::utf8()}}), {ember::Column::from(urls)})});
  ember::DownloadOptions nulls;
  nulls.on_error = ember::OnError::Null;
  const ember::Table r =
      ember::from_table(t).with_column("bytes", ember::col("url").url_download(nulls)).collect();
  std::string out;
  for (int64_t i = 0; i < r.num_rows(); ++i)
    if (r.column("bytes").is_valid(i)) out += names[static_cast<size_t>(i)] + " ";
  return out;
}

/// Rows of kTarget's parts that are not (id, 3 * id) for id 0..n-1 in order (all of them when
/// the parts hold other columns).
int64_t wrong_rows(int64_t n) {
  const ember::Table back = ember::read_csv(std::string(kTarget) + "*.csv").collect();
  if (back.num_rows() != n || back.schema().num_fields() != 2) return n;
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i)
    if (back.column("id").value<int64_t>(i) != i || back.column("y").value<int64_t>(i) != 3 * i)
      ++wrong;
  return wrong;
}

}  // namespace

int s3_write() {
  ember::range(300, 3).with_column("y", ember::col("id") * 3).write_csv(kTarget);
  const std::string before = listing();
  ember::QueryResult r =
      ember::range(6000, 6).with_column("y", triple(3)(ember::col("id"))).write_csv(kTarget);
  bool ok = show_ranks("s3 write", r.stats);
  bool every = !r.stats.ranks.empty();
  std::cout << "s3 bytes written per rank:";
  for (const ember::RankStats& rank : r.stats.ranks) {
    std::cout << " " << rank.bytes_written;
    every = every && rank.bytes_written > 0;
  }
  std::cout << (every ? ", every rank wrote its own parts\n" : ", NOT every rank wrote\n");
  const std::string after = listing();
  std::cout << "s3 write: " << after << "(before: " << before << "), " << wrong_rows(6000)
            << " rows wrong\n";
  // Its parts would hold a third column: none may be visible after the failure.
  try {
    ember::range(6000, 6)
        .with_column("y", ember::col("id") * 3)
        .with_column("z", triple(3, {{"fail", "call@2"}})(ember::col("id")))
        .write_csv(kTarget);
    std::cout << "failed s3 write: no error\n";
    return 1;
  } catch (const ember::UdfError&) {
    std::cout << "failed s3 write: UdfError, output "
              << (listing() == after && wrong_rows(6000) == 0 ? "unchanged" : "CHANGED") << "\n";
  }
  // The groups of a group-by, written by key range: each rank uploads the part of its range.
  auto grouped = ember::range(6000, 6)
                     .with_column("k", ember::col("id") % 300)
                     .group_by({"k"})
                     .agg({ember::col("id").sum().alias("s")});
  ember::QueryResult g = grouped.write_csv("s3://data/groups/");
  bool ranges = g.stats.rows_out == 300 && g.stats.ranks.size() == 3;
  for (const ember::RankStats& rank : g.stats.ranks) ranges = ranges && rank.bytes_written > 0;
  const std::string read = ember::read_csv("s3://data/groups/*.csv").collect().to_string(1000);
  const std::string collected = grouped.execute().table.to_string(1000);
  std::cout << "s3 group-by write: "
            << (ranges ? "every rank uploaded its key range" : "NOT every rank uploaded") << ", "
            << (read == collected ? "read back in key order as collected" : "NOT as collected")
            << "\n";
  return ok && every && ranges && read == collected ? 0 : 1;
}

}  // namespace cluster_app
