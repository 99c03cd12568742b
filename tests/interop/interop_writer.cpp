// Writes a deterministic table with ember's write_csv and write_jsonl, for an independent
// engine (DuckDB) to read back and check. The rows follow formulas that check_with_duckdb.mjs
// recomputes on its own.
#include <cstdio>
#include <optional>
#include <string>

#include "ember/ember.h"

using namespace ember;

namespace {

std::string tricky(int64_t i) {
  switch (i % 6) {
    case 0:
      return "plain " + std::to_string(i);
    case 1:
      return "comma, here " + std::to_string(i);
    case 2:
      return "quote \" inside " + std::to_string(i);
    case 3:
      return "new\nline " + std::to_string(i);
    case 4:
      return "caf\u00e9 \u2603 " + std::to_string(i);
    default:
      return "  padded " + std::to_string(i) + "  ";
  }
}

}  // namespace

int main(int argc, char** argv) {
  ember::init(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  const int64_t n = 3000;
  std::vector<int64_t> id;
  std::vector<std::optional<double>> x;
  std::vector<std::optional<std::string>> s;
  std::vector<std::optional<bool>> b;
  for (int64_t i = 0; i < n; ++i) {
    id.push_back(i);
    x.push_back(i % 7 == 0 ? std::nullopt
                           : std::optional<double>(static_cast<double>(i) * 1.5 + 0.25));
    s.push_back(i % 11 == 0 ? std::nullopt : std::optional<std::string>(tricky(i)));
    b.push_back(i % 13 == 0 ? std::nullopt : std::optional<bool>(i % 2 == 0));
  }
  Table t = Table::from_columns({{"id", Column::from(id)},
                                 {"x", Column::from(x)},
                                 {"s", Column::from(s)},
                                 {"b", Column::from(b)}});
  DataFrame df = from_table(t, 4).with_column("y", col("id") * lit(int64_t{3}));
  std::string out = argv[1];
  df.write_csv(out + "/csv");
  df.write_jsonl(out + "/jsonl");
  return 0;
}
