// A filter directly over a CSV scan runs while the file is parsed: only the columns it reads are
// parsed for every row, the others only for the rows it keeps. Same rows as filtering after a
// full parse, every row still counted as read, and explain() says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ember/ember.h"
#include "io/temp_dir.h"

using namespace ember;
namespace fs = std::filesystem;

namespace {

fs::path write_csv_file(const std::string& name, const std::string& text) {
  static const testing_io::TempDir root;  // removed, with every test's folder, at exit
  fs::path d = fs::path(root.path()) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream(d / "in.csv") << text;
  return d / "in.csv";
}

/// id, x (int with empties), cat (text), note (text, some quoted with commas and line breaks).
std::string sample_csv(int rows) {
  std::string text = "id,x,cat,note\n";
  for (int i = 0; i < rows; ++i) {
    text += std::to_string(i) + ",";
    if (i % 9 != 0) text += std::to_string((i * 37) % 100);
    text += std::string(",") + (i % 4 == 0 ? "skip" : i % 4 == 1 ? "keep" : "other") + ",";
    text +=
        i % 11 == 0 ? "\"quoted, with\nbreak " + std::to_string(i) + "\"" : "n" + std::to_string(i);
    text += "\n";
  }
  return text;
}

/// The same rows as `want`, every column compared as text.
void expect_same(const Table& got, const Table& want) {
  ASSERT_EQ(got.schema(), want.schema());
  ASSERT_EQ(got.num_rows(), want.num_rows());
  for (const Field& f : want.schema().fields()) {
    const Column g = got.column(f.name), w = want.column(f.name);
    for (int64_t i = 0; i < w.size(); ++i)
      ASSERT_EQ(to_string(g.get(i)), to_string(w.get(i))) << f.name << " row " << i;
  }
}

/// A stateless UDF keeps the filter off the scan: the reference of a full parse, then a filter.
Udf identity() {
  return Udf::fn("same", [](const Batch& in) { return in.column(0); }).returns(int64());
}

}  // namespace

TEST(CsvScanFilter, KeepsTheRowsAFilterAfterAFullParseKeeps) {
  const fs::path path = write_csv_file("same", sample_csv(20000));
  CsvOptions small;
  small.split_bytes = 64 * 1024;  // several splits, so several readers
  for (int threads : {1, 2, 4}) {
    RunOptions o;
    o.threads = threads;
    const Expr keep = col("x") < lit(int64_t{40}) && col("cat") != lit(std::string("skip"));
    DataFrame pushed = read_csv(path.string(), small).where(keep);
    DataFrame reference =
        read_csv(path.string(), small).with_column("x", identity()(col("x"))).where(keep);
    const std::string plan = pushed.explain();
    EXPECT_NE(plan.find("other columns parsed only where"), std::string::npos) << plan;
    EXPECT_EQ(reference.explain().find("parsed only where"), std::string::npos);
    QueryResult got = pushed.execute(o);
    QueryResult want = reference.execute(o);
    ASSERT_GT(want.table.num_rows(), 1000);
    expect_same(got.table, want.table);
    // Every row of the file was read, dropped while parsing or not.
    EXPECT_EQ(got.stats.ranks.at(0).rows, 20000);
  }
}

TEST(CsvScanFilter, ABadValueIsAnErrorOnlyWhereItIsParsed) {
  // Row 3's note is not valid UTF-8, and row 5's x is not a number.
  std::string text = "id,x,note\n1,5,a\n2,50,b\n3,60,\xff\xfe\n4,7,d\n";
  const fs::path bad_note = write_csv_file("bad_note", text);
  // Row 3 is dropped by the filter before its note is parsed: not an error.
  Table t = read_csv(bad_note.string()).where(col("x") < lit(int64_t{10})).collect();
  EXPECT_EQ(t.num_rows(), 2);
  // Without the filter the note is parsed, and it is one.
  EXPECT_THROW(read_csv(bad_note.string()).collect(), ParseError);
  // A column the filter reads is parsed for every row.
  const fs::path bad_x = write_csv_file("bad_x", "id,x,note\n1,5,a\n2,zz,b\n3,8,c\n");
  CsvOptions declared;
  declared.schema = Schema({{"id", int64()}, {"x", int64()}, {"note", utf8()}});
  EXPECT_THROW(read_csv(bad_x.string(), declared).where(col("x") < lit(int64_t{10})).collect(),
               ParseError);
}
