// The ember side of the Parquet interop test. Reads every file write_parquet_with_duckdb.mjs
// wrote (DIR/duckdb/*.parquet) and checks each value against the formulas; then writes each one
// back with write_parquet (DIR/ember-<name>/, small row groups, each codec) and the explode of
// its list column (DIR/explode/), for check_parquet_with_duckdb.mjs to compare with DuckDB's
// own reading and unnest; and checks DuckDB's integer extremes and TIME (DIR/integers/) against
// DuckDB's own reading. Usage: ember_interop_parquet DIR
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

#include "ember/ember.h"
#include "interop/parquet_expectations.h"

using namespace ember;

// ember's reading of DuckDB's integer extremes and TIME (DIR/integers/extremes.parquet) against
// DuckDB's own reading of the same file (extremes.txt); and DuckDB's UBIGINT 2^64 - 1, which
// must be an error, never a negative number. Returns the number of mismatches.
int check_integers(const std::string& dir) {
  int failures = 0;
  std::ifstream in(dir + "/extremes.txt");
  std::vector<std::vector<std::string>> lines;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream cells_in(line);
    for (std::string cell; std::getline(cells_in, cell, '\t');) cells.push_back(cell);
    lines.push_back(std::move(cells));
  }
  const Table t = read_parquet(dir + "/extremes.parquet").collect();
  if (lines.size() != size_t(t.num_rows()) + 1) {
    std::fprintf(stderr, "integers: DuckDB read %zu rows, ember %lld\n", lines.size() - 1,
                 static_cast<long long>(t.num_rows()));
    return 1;
  }
  for (size_t c = 0; c < lines[0].size(); ++c) {
    const Column col = t.column(lines[0][c]);
    for (int64_t r = 0; r < t.num_rows(); ++r) {
      const Value v = col.get(r);
      const std::string ours =
          std::holds_alternative<int64_t>(v) ? std::to_string(std::get<int64_t>(v)) : "null";
      if (ours != lines[size_t(r) + 1].at(c)) {
        std::fprintf(stderr, "integers: %s row %lld: DuckDB reads %s, ember %s\n",
                     lines[0][c].c_str(), static_cast<long long>(r),
                     lines[size_t(r) + 1][c].c_str(), ours.c_str());
        ++failures;
      }
    }
  }
  try {
    const Table u = read_parquet(dir + "/overflow.parquet").collect();
    std::fprintf(stderr, "integers: UBIGINT 2^64 - 1 read as %s\n", u.to_string().c_str());
    ++failures;
  } catch (const ParseError& e) {
    if (std::string(e.what()).find("does not fit in int64") == std::string::npos) {
      std::fprintf(stderr, "integers: unexpected error: %s\n", e.what());
      ++failures;
    }
  }
  std::printf("ember read DuckDB's integer extremes and TIME: %s\n",
              failures ? "MISMATCH" : "all values match");
  return failures;
}

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
  failures += check_integers(dir + "/integers");
  read_parquet(dir + "/duckdb/zstd.parquet")
      .select({col("id"), col("tags")})
      .explode("tags")
      .write_parquet(dir + "/explode");
  std::printf("ember read %d DuckDB files: %s\n", k, failures ? "MISMATCH" : "all values match");
  return failures ? 1 : 0;
}
