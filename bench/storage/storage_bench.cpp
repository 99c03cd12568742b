// ember's side of the object storage benchmark (bench/storage/run.sh starts the server).
//   storage_bench FILE URL ENDPOINT REPEAT
//       reads the local Parquet FILE and the same bytes at URL (s3://..., through ENDPOINT with
//       s3rver's key pair), REPEAT times each, alternating; prints one JSON line per source:
//       median seconds and a check (rows and a sum) that must agree.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

std::string check_of(const Table& t) {
  const Column id = t.column("id");
  long long ids = 0;
  for (int64_t i = 0; i < t.num_rows(); ++i) ids += id.value<int64_t>(i);
  return std::to_string(t.num_rows()) + ":" + std::to_string(ids);
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);
  if (argc != 5) {
    std::fprintf(stderr, "usage: storage_bench FILE URL ENDPOINT REPEAT\n");
    return 2;
  }
  const std::string file = argv[1], url = argv[2];
  const int repeat = std::max(1, std::atoi(argv[4]));
  ParquetOptions local;
  ParquetOptions remote;
  remote.storage.endpoint_url = argv[3];
  remote.storage.access_key_id = "S3RVER";
  remote.storage.secret_access_key = "S3RVER";
  RunOptions run;
  run.threads = 2;
  std::vector<double> seconds[2];
  std::string checks[2];
  for (int r = 0; r < repeat; ++r) {
    for (int side = 0; side < 2; ++side) {
      const auto t0 = std::chrono::steady_clock::now();
      const Table t = side == 0 ? read_parquet(file, local).collect(run)
                                : read_parquet(url, remote).collect(run);
      seconds[side].push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      checks[side] = check_of(t);
    }
  }
  for (int side = 0; side < 2; ++side) {
    std::sort(seconds[side].begin(), seconds[side].end());
    std::printf("{\"source\":\"%s\",\"seconds\":%.4f,\"check\":\"%s\"}\n",
                side == 0 ? "local" : "s3", seconds[side][seconds[side].size() / 2],
                checks[side].c_str());
  }
  return 0;
}
