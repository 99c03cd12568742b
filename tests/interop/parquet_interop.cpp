// The ember side of the Parquet interop test. Reads every file write_parquet_with_duckdb.mjs
// wrote (DIR/duckdb/*.parquet) and checks each value against the formulas; then writes each one
// back with write_parquet (DIR/ember-<name>/, small row groups, each codec) and the explode of
// its list column (DIR/explode/), for check_parquet_with_duckdb.mjs to compare with DuckDB's
// own reading and unnest. Usage: ember_interop_parquet DIR
#include <cstdio>
#include <filesystem>

#include "ember/ember.h"
#include "interop/parquet_expectations.h"

using namespace ember;

int main(int argc, char** argv) {
  init(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const Compression codecs[] = {Compression::Snappy, Compression::Zstd, Compression::Gzip,
                                Compression::None};
  int failures = 0, k = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/duckdb")) {
    const std::string path = entry.path().string();
    const std::string name = entry.path().stem().string();
    try {
      const Table t = read_parquet(path).collect();
      const std::string mismatch = interop::duckdb_mismatch(t, 10000);
      if (!mismatch.empty()) {
        std::fprintf(stderr, "%s: %s\n", path.c_str(), mismatch.c_str());
        ++failures;
      }
      ParquetWriteOptions o;
      o.compression = codecs[k++ % 4];
      o.row_group_rows = 1500;
      read_parquet(path).repartition(2).write_parquet(dir + "/ember-" + name, o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
      ++failures;
    }
  }
  read_parquet(dir + "/duckdb/zstd.parquet")
      .select({col("id"), col("tags")})
      .explode("tags")
      .write_parquet(dir + "/explode");
  std::printf("ember read %d DuckDB files: %s\n", k, failures ? "MISMATCH" : "all values match");
  return failures ? 1 : 0;
}
