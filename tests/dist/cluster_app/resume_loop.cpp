// A resumable Parquet -> process-actor UDF -> Parquet write that a test kills again and again
// (a worker rank, rank 0 or mpirun, at random moments) and reruns until it completes, on 3 ranks
// or 2; then its output is checked against an uninterrupted run's.
#include <ember/ember.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "scenarios.h"

namespace cluster_app {

namespace fs = std::filesystem;

/// 7 x its argument, after `ms` per call: a model that takes a while. With the init arg `log`
/// not empty, each call appends its row count as a line to that file (one write, O_APPEND, from
/// any rank's actor processes), so that the test can count the rows computed, kept or not.
struct SlowSeven {
  explicit SlowSeven(const ember::InitArgs& args)
      : ms(args.get<int64_t>("ms")), log(args.get<std::string>("log")) {}
  ember::Column operator()(const ember::Batch& in) const {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    const ember::Column& x = in.column(0);
    std::vector<std::optional<int64_t>> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(x.value<int64_t>(i) * 7);
    if (!log.empty()) {
      const std::string line = std::to_string(in.num_rows()) + "\n";
      const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0 || ::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
        throw std::runtime_error("cannot log to " + log);
      ::close(fd);
    }
    return ember::Column::from(std::move(out));
  }
  int64_t ms;
  std::string log;
};
EMBER_REGISTER_UDF(SlowSeven);

namespace {

constexpr int64_t kRows = 9600;
constexpr int64_t kRowsPerPartition = 200;  // a row group each: 48 partitions

/// The job; `ms` per UDF call (the reference run takes no time over it, and logs nothing).
ember::QueryResult run_job(const fs::path& root, const fs::path& out, bool resumable,
                           int64_t ms = 30) {
  const std::string log = resumable ? (root / "udf-rows.log").string() : "";
  auto seven = ember::Udf::cls<SlowSeven>("slow_seven")
                   .returns(ember::int64())
                   .init_args({{"ms", ms}, {"log", log}})
                   .batch_size(50)
                   .concurrency(3)
                   .isolation(ember::Isolation::Process);
  ember::RunOptions run;
  run.threads = 2;
  run.resumable = resumable;
  return ember::read_parquet((root / "in" / "*.parquet").string())
      .with_column("y", seven(ember::col("id")))
      .write_parquet(out.string(), {}, run);
}

}  // namespace

int resume_loop(const fs::path& base) {
  const fs::path root = base / "loop";
  if (!fs::exists(root / "in")) {  // written once: a rewritten input is another query's
    ember::ParquetWriteOptions groups;
    groups.row_group_rows = kRowsPerPartition;
    ember::range(kRows, 1).write_parquet((root / "in").string(), groups);
  }
  const ember::QueryStats s = run_job(root, root / "out", true).stats;
  std::cout << "loop run on " << s.ranks.size() << " rank(s): resumed partitions "
            << s.resumed_partitions << ", resumed rows " << s.resumed_rows << ", rows out "
            << s.rows_out << "\n";
  return s.resumed_rows == s.resumed_partitions * kRowsPerPartition ? 0 : 1;
}

int resume_loop_check(const fs::path& base) {
  const fs::path root = base / "loop";
  if (!fs::exists(root / "reference")) run_job(root, root / "reference", false, 0);
  const ember::Table got = ember::read_parquet((root / "out" / "*.parquet").string()).collect();
  const ember::Table want =
      ember::read_parquet((root / "reference" / "*.parquet").string()).collect();
  // Each id once, with its value, in input order: no row lost, none twice.
  int64_t wrong = 0;
  const ember::Column id = got.column("id"), y = got.column("y");
  for (int64_t i = 0; i < got.num_rows(); ++i)
    wrong += id.value<int64_t>(i) != i || y.value<int64_t>(i) != 7 * i;
  const bool same = got.to_string(kRows + 1) == want.to_string(kRows + 1);
  std::cout << "loop output " << (same ? "equals" : "DIFFERS FROM")
            << " an uninterrupted run's: " << got.num_rows() << " rows, " << wrong
            << " missing, twice or wrong\n";
  std::cout << "loop staging left: "
            << (fs::exists(root / ".out.ember-resume") ||
                        fs::exists(root / ".out.ember-resume.journal")
                    ? "yes"
                    : "none")
            << "\n";
  return same && wrong == 0 && got.num_rows() == kRows ? 0 : 1;
}

}  // namespace cluster_app
