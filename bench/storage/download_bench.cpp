// ember's side of the download benchmark (bench/storage/download_run.sh starts the server and
// runs curl over the same URLs).
//   download_bench URLS CONNECTIONS
//       downloads every URL of the file URLS (one a line) with Expr::url_download, at most
//       CONNECTIONS at once; prints one JSON line: seconds, files and bytes downloaded.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

int main(int argc, char** argv) {
  ember::init(argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: download_bench URLS CONNECTIONS\n");
    return 2;
  }
  std::vector<std::string> urls;
  std::ifstream in(argv[1]);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) urls.push_back(line);
  DownloadOptions options;
  options.max_connections = std::atoi(argv[2]);
  const Table table = Table::from_columns({{"url", Column::from(urls)}});
  const auto start = std::chrono::steady_clock::now();
  const Table got =
      from_table(table, 4).with_column("file", col("url").url_download(options)).collect();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Column file = got.column("file");
  long long bytes = 0;
  for (int64_t i = 0; i < got.num_rows(); ++i)
    bytes += static_cast<long long>(file.value<std::string_view>(i).size());
  std::printf("{\"seconds\": %.4f, \"files\": %lld, \"bytes\": %lld}\n", seconds,
              static_cast<long long>(got.num_rows()), bytes);
  return 0;
}
