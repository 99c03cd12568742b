// A UDF's timeout and max_concurrency on worker ranks (udf_settings.h). Each rank hosts one
// actor (concurrency 3 on 3 ranks) and runs its own partitions on it, so what happens on rank
// 1 or 2 is decided by the settings that reached that rank.
#include "udf_settings.h"

#include <ember/ember.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

#include "rank.h"

namespace fs = std::filesystem;

namespace cluster_app {

namespace {

/// Returns its argument. The first call on rank 1 (one file "slow-rank1" in `marker_dir` says
/// it happened) sleeps `slow_ms` first: past the UDF's timeout.
struct SlowOnce {
  explicit SlowOnce(const ember::InitArgs& args)
      : slow_ms(args.get<int64_t>("slow_ms")), marker_dir(args.get<std::string>("marker_dir")) {}
  ember::Column operator()(const ember::Batch& in) const {
    if (my_rank() == 1) {
      const fs::path marker = fs::path(marker_dir) / "slow-rank1";
      if (!fs::exists(marker)) {
        std::ofstream{marker};
        std::this_thread::sleep_for(std::chrono::milliseconds(slow_ms));
      }
    }
    return in.column(0);
  }
  int64_t slow_ms;
  std::string marker_dir;
};
EMBER_REGISTER_UDF(SlowOnce);

/// Returns its argument after `ms`, counting the calls that run at once in this process (this
/// rank: thread isolation) and writing the highest count to "peak-rankR" in `marker_dir`.
struct ConcurrencyGauge {
  explicit ConcurrencyGauge(const ember::InitArgs& args)
      : ms(args.get<int64_t>("ms")), marker_dir(args.get<std::string>("marker_dir")) {}
  ember::Column operator()(const ember::Batch& in) const {
    static std::atomic<int> running{0};
    static std::mutex mu;
    static int peak = 0;  // guarded by mu
    const int now = ++running;
    {
      std::lock_guard lock(mu);
      if (now > peak) {
        peak = now;
        std::ofstream(fs::path(marker_dir) / ("peak-rank" + std::to_string(my_rank()))) << peak;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    --running;
    return in.column(0);
  }
  int64_t ms;
  std::string marker_dir;
};
EMBER_REGISTER_UDF(ConcurrencyGauge);

bool ids_come_back(const ember::Table& t, int64_t rows) {
  bool ok = t.num_rows() == rows;
  for (int64_t i = 0; ok && i < rows; ++i) ok = t.column("y").value<int64_t>(i) == i;
  return ok;
}

}  // namespace

int udf_timeout_on_a_worker_rank(const fs::path& dir) {
  const fs::path markers = fs::absolute(dir / "timeout-markers");
  fs::create_directories(markers);
  // The slow call takes 1.2 s against a timeout of 0.4 s; its retry goes 1 s later, when the
  // actor (one call at a time) is free again.
  auto udf = ember::Udf::cls<SlowOnce>("slow_once")
                 .returns(ember::int64())
                 .init_args({{"slow_ms", int64_t{1200}}, {"marker_dir", markers.string()}})
                 .batch_size(100)
                 .concurrency(3)
                 .timeout(std::chrono::milliseconds(400))
                 .max_retries(3)
                 .retry_backoff(std::chrono::milliseconds(1000), std::chrono::milliseconds(1000));
  ember::QueryResult r = ember::range(900, 3).with_column("y", udf(ember::col("id"))).execute();
  const bool right = ids_come_back(r.table, 900);
  const ember::UdfStats& u = r.stats.udfs.at(0);
  std::cout << "timeout: rows " << r.table.num_rows() << (right ? " all correct" : " WRONG")
            << ", slow call on rank 1 "
            << (fs::exists(markers / "slow-rank1") ? "made" : "never made") << ", timeouts "
            << u.timeouts << ", retries " << u.retries << "\n";
  return right && u.timeouts >= 1 ? 0 : 1;
}

int udf_max_concurrency_on_worker_ranks(const fs::path& dir) {
  const fs::path markers = fs::absolute(dir / "concurrency-markers");
  fs::create_directories(markers);
  auto udf = ember::Udf::cls<ConcurrencyGauge>("gauge")
                 .returns(ember::int64())
                 .init_args({{"ms", int64_t{100}}, {"marker_dir", markers.string()}})
                 .batch_size(100)
                 .concurrency(3)
                 .max_concurrency(4);
  ember::QueryResult r = ember::range(12000, 3).with_column("y", udf(ember::col("id"))).execute();
  const bool right = ids_come_back(r.table, 12000);
  std::cout << "max_concurrency: rows " << r.table.num_rows() << (right ? " all correct" : " WRONG")
            << ", peak calls at once per rank";
  bool four = true;
  for (int rank = 0; rank < static_cast<int>(r.stats.ranks.size()); ++rank) {
    int peak = 0;
    std::ifstream(markers / ("peak-rank" + std::to_string(rank))) >> peak;
    std::cout << " " << peak;
    four = four && peak == 4;
  }
  std::cout << "\n";
  return right && four ? 0 : 1;
}

}  // namespace cluster_app
