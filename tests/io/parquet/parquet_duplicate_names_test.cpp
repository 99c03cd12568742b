// Parquet files whose schema names two top-level columns alike: the repeat is renamed (x, x_1,
// as DuckDB reads them), each name reads its own column, and pruning to a renamed column reads
// the right one.
#include <gtest/gtest.h>

#include <filesystem>

#include "io/parquet/parquet_scan.h"
#include "io/parquet/rewritten_footer.h"

namespace ember {
namespace {

using parquet::FileMetaData;
using testing_io::TempDir;
using testing_io::write_parquet_with_footer;

Table read_all(const std::string& path, const std::vector<std::string>& columns = {}) {
  const ParquetScan scan = plan_parquet_scan(path, columns);
  std::vector<Batch> batches;
  for (size_t p = 0; p < scan.parts.size(); ++p) {
    auto reader = open_parquet_part(scan, static_cast<int>(p), 100);
    while (auto b = reader->next()) batches.push_back(std::move(*b));
  }
  return Table(scan.schema, std::move(batches));
}

// Columns a, b, c holding 1, 2, 3, renamed in the footer to `names`.
std::string file_named(const TempDir& dir, const std::vector<std::string>& names) {
  const Table t = Table::from_columns({{"a", Column::from(std::vector<int64_t>{1})},
                                       {"b", Column::from(std::vector<int64_t>{2})},
                                       {"c", Column::from(std::vector<int64_t>{3})}});
  return write_parquet_with_footer(dir, "dup.parquet", t, [&](FileMetaData& m) {
    for (size_t i = 0; i < names.size(); ++i) {
      m.schema[i + 1].name = names[i];
      for (auto& g : m.row_groups) g.columns[i].path = {names[i]};
    }
  });
}

std::string row(const Table& t) {
  std::string out;
  for (const Field& f : t.schema().fields())
    out += (out.empty() ? "" : ", ") + f.name + "=" + ember::to_string(t.column(f.name).get(0));
  return out;
}

TEST(ParquetDuplicateNames, RepeatsAreRenamedAndEachNameReadsItsOwnColumn) {
  TempDir dir;
  const std::string path = file_named(dir, {"x", "x", "y"});
  EXPECT_EQ(row(read_all(path)), "x=1, x_1=2, y=3");
  EXPECT_EQ(row(read_all(path, {"x_1"})), "x_1=2");
  EXPECT_EQ(row(read_all(path, {"x"})), "x=1");
  EXPECT_EQ(row(read_all(path, {"y", "x_1", "x"})), "y=3, x_1=2, x=1");
}

TEST(ParquetDuplicateNames, ARenameSkipsNamesTheFileAlreadyHas) {
  TempDir dir;
  const std::string path = file_named(dir, {"x", "x", "x_1"});
  EXPECT_EQ(row(read_all(path)), "x=1, x_2=2, x_1=3");
  EXPECT_EQ(row(read_all(path, {"x_1"})), "x_1=3");
}

TEST(ParquetDuplicateNames, DuckdbWrittenFileReadsAsDuckdbReadsIt) {
  const char* env = std::getenv("EMBER_TEST_DATA");
  const std::string data =
      env != nullptr ? env
                     : (std::filesystem::path(__FILE__).parent_path() / "../../data").string();
  const std::string path = data + "/io/parquet/duplicate_names.parquet";
  EXPECT_EQ(row(read_all(path)), "dupname_x=1, dupname_x_1=2");
  EXPECT_EQ(row(read_all(path, {"dupname_x_1"})), "dupname_x_1=2");
}

}  // namespace
}  // namespace ember
