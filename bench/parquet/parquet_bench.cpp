// ember's side of the Parquet benchmark (bench/parquet/run.sh runs both sides on one file).
//   parquet_bench read FILE OUT_DIR THREADS REPEAT
//       aggregates every column of FILE (a flat file), reads it into memory, then writes it back
//       as Snappy Parquet to OUT_DIR, REPEAT times each; one JSON line per operation: median
//       seconds, and for the scan and read a check (rows, sums; for the nested file with an
//       image struct: rows, image bytes, embedding items)
//   parquet_bench scan FILE OUT_DIR THREADS REPEAT
//       the aggregate alone (to profile it)
//   parquet_bench collect FILE OUT_DIR THREADS REPEAT
//       the read into memory alone (to profile it)
//   parquet_bench pipeline FILE OUT_DIR THREADS
//       Parquet -> filter -> Parquet streamed once; seconds, rows kept and the process's peak RSS
//       (run in a process of its own so that nothing else counts toward the peak)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median_seconds(int repeat, const std::function<void()>& f) {
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) times.push_back(seconds_of(f));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Rows, bytes of the images and items of the embeddings: DuckDB's check of the nested file.
std::string nested_check(const Table& t) {
  const Column bytes = t.column("image").field("bytes"), emb = t.column("embedding");
  long long n = 0, items = 0;
  for (int64_t i = 0; i < t.num_rows(); ++i) {
    if (!bytes.is_null(i)) n += static_cast<long long>(bytes.value<std::string_view>(i).size());
    if (!emb.is_null(i)) items += emb.list_range(i).second - emb.list_range(i).first;
  }
  return std::to_string(t.num_rows()) + ":" + std::to_string(n) + ":" + std::to_string(items);
}

// Rows, sum(id) and sum(qty): what DuckDB's side prints for the same file.
std::string read_check(const Table& t) {
  if (t.schema().index_of("image") >= 0) return nested_check(t);
  const Column id = t.column("id"), qty = t.column("qty");
  long long ids = 0, qtys = 0;
  for (int64_t i = 0; i < t.num_rows(); ++i) {
    ids += id.value<int64_t>(i);
    qtys += qty.is_null(i) ? 0 : qty.values<int32_t>()[i];
  }
  return std::to_string(t.num_rows()) + ":" + std::to_string(ids) + ":" + std::to_string(qtys);
}

// Every column aggregated straight from the file, as DuckDB's side does; the check is rows,
// sum(id) and sum(qty).
void scan(const std::string& file, RunOptions run, int repeat) {
  const DataFrame df =
      read_parquet(file).agg({col("id").count().alias("rows"), col("id").sum(), col("qty").sum(),
                              col("price").sum(), col("score").sum(), col("category").count(),
                              col("name").count(), col("ts").max(), col("flag").sum()});
  Table result;
  const double secs = median_seconds(repeat, [&] { result = df.collect(run); });
  const std::string check = std::to_string(result.column("rows").value<int64_t>(0)) + ":" +
                            std::to_string(result.column("id").value<int64_t>(0)) + ":" +
                            std::to_string(result.column("qty").value<int64_t>(0));
  std::printf("{\"system\": \"ember\", \"op\": \"scan\", \"seconds\": %.4f, \"check\": \"%s\"}\n",
              secs, check.c_str());
}

int read_and_write(const std::string& file, const std::string& out, RunOptions run, int repeat) {
  if (read_parquet(file).schema().index_of("image") < 0) scan(file, run, repeat);
  Table table;
  const double read = median_seconds(repeat, [&] { table = read_parquet(file).collect(run); });
  std::printf("{\"system\": \"ember\", \"op\": \"read\", \"seconds\": %.4f, \"check\": \"%s\"}\n",
              read, read_check(table).c_str());
  // As many partitions as threads, so that both write in parallel as DuckDB's COPY does.
  const DataFrame df = from_table(table, run.threads);
  const double write = median_seconds(repeat, [&] {
    std::filesystem::remove_all(out + "/ember");
    df.write_parquet(out + "/ember", {}, run);
  });
  std::printf("{\"system\": \"ember\", \"op\": \"write\", \"seconds\": %.4f}\n", write);
  return 0;
}

int pipeline(const std::string& file, const std::string& out, RunOptions run) {
  std::filesystem::remove_all(out + "/filtered");
  const double secs = seconds_of([&] {
    read_parquet(file).where(col("price") > lit(50000.0)).write_parquet(out + "/filtered", {}, run);
  });
  const int64_t kept =
      read_parquet(out + "/filtered/*.parquet").select({col("id")}).collect().num_rows();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "{\"system\": \"ember\", \"op\": \"pipeline\", \"seconds\": %.4f, \"rows\": %lld, "
      "\"peak_rss_mb\": %.0f}\n",
      secs, static_cast<long long>(kept), static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: parquet_bench read|scan|collect|pipeline FILE OUT_DIR THREADS [REPEAT]\n");
    return 2;
  }
  const std::string mode = argv[1], file = argv[2], out = argv[3];
  RunOptions run;
  run.threads = std::atoi(argv[4]);
  if (mode == "read") return read_and_write(file, out, run, argc > 5 ? std::atoi(argv[5]) : 3);
  if (mode == "pipeline") return pipeline(file, out, run);
  if (mode == "scan") {  // the scan alone, for profiling
    scan(file, run, argc > 5 ? std::atoi(argv[5]) : 3);
    return 0;
  }
  if (mode == "collect") {  // the read into memory alone, for profiling
    const double secs = median_seconds(argc > 5 ? std::atoi(argv[5]) : 3,
                                       [&] { (void)read_parquet(file).collect(run); });
    std::printf("{\"system\": \"ember\", \"op\": \"collect\", \"seconds\": %.4f}\n", secs);
    return 0;
  }
  std::fprintf(stderr, "parquet_bench: unknown mode '%s'\n", mode.c_str());
  return 2;
}
