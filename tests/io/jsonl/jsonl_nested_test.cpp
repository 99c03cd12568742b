// JSON lines and the newer types: arrays read as lists (nested, with nulls at both levels),
// every type written (binary as base64, timestamps as UTC text), and what CSV cannot hold.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "io/output/partition_writer.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using testing_io::TempDir;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(JsonlNested, ArraysReadAsLists) {
  TempDir dir;
  const std::string path =
      dir.write("a.jsonl",
                "{\"xs\":[1,2,null],\"tags\":[\"a\"],\"m\":[[1.5],[]],\"e\":[]}\n"
                "{\"xs\":null,\"tags\":[],\"m\":[[2,3]],\"e\":[]}\n"
                "{\"xs\":[],\"tags\":[null,\"b\"],\"m\":null}\n");
  const Table t = testing_io::read_jsonl_table(path);
  EXPECT_EQ(t.schema().to_string(),
            "xs: list<int64>, tags: list<utf8>, m: list<list<float64>>, e: list<utf8>");
  const Column xs = t.column("xs");
  EXPECT_EQ(xs.get(0), Value(List{{int64_t{1}, int64_t{2}, Value{}}, int64()}));
  EXPECT_TRUE(xs.is_null(1));
  EXPECT_EQ(xs.list(2).size(), 0);
  EXPECT_EQ(to_string(t.column("m").get(1)), "[[2, 3]]");
  EXPECT_TRUE(t.column("e").is_null(2)) << "a missing key";
}

TEST(JsonlNested, AnItemOfTheWrongKindIsAParseErrorAtItsKey) {
  TempDir dir;
  std::string lines;
  for (int i = 0; i < 1100; ++i) lines += "{\"xs\":[1,2]}\n";
  lines += "{\"xs\":[1,\"two\"]}\n";  // beyond the sampled lines
  const std::string path = dir.write("a.jsonl", lines);
  try {
    testing_io::read_jsonl_table(path);
    FAIL() << "expected a ParseError";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find(":1101:2:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("whose items do not fit"), std::string::npos) << e.what();
  }
}

TEST(JsonlNested, EveryTypeIsWrittenAndListsComeBack) {
  TempDir dir;
  using Words = std::vector<std::optional<std::string>>;
  const Table t = Table::from_columns(
      {{"i", Column::from(std::vector<std::optional<int32_t>>{7, std::nullopt})},
       {"f", Column::from(std::vector<float>{0.5f, -1.0f})},
       {"b", Column::from(std::vector<std::vector<uint8_t>>{{'M', 'a', 'n'}, {0xff}})},
       {"t", Column::from(std::vector<Timestamp>{{1709294400250000}, {0}})},
       {"w",
        Column::from(std::vector<std::optional<Words>>{Words{"x", std::nullopt}, std::nullopt})}});
  auto w = open_partition_writer(dir.path(), 0, t.schema(), FileFormat::Jsonl);
  for (const Batch& b : t.batches()) w->write(b);
  w->commit();
  const std::string path = dir.file(part_file_name(0, FileFormat::Jsonl));
  EXPECT_EQ(
      slurp(path),
      "{\"i\":7,\"f\":0.5,\"b\":\"TWFu\",\"t\":\"2024-03-01 12:00:00.250000\",\"w\":[\"x\",null]}\n"
      "{\"i\":null,\"f\":-1.0,\"b\":\"/w==\",\"t\":\"1970-01-01 00:00:00\",\"w\":null}\n");
  const Table back = testing_io::read_jsonl_table(path);
  EXPECT_EQ(back.column("w").get(0), t.column("w").get(0));
}

TEST(JsonlNested, ObjectsWhoseKeysAgreeReadAsStructs) {
  TempDir dir;
  const std::string path =
      dir.write("o.jsonl",
                "{\"img\": {\"path\": \"a.png\", \"size\": 3, \"tags\": [\"x\"]}, "
                "\"odd\": {\"a\": 1}, \"pts\": [{\"x\": 1, \"y\": 2.5}]}\n"
                "{\"img\": null, \"odd\": {\"b\": 2}, \"pts\": []}\n"
                "{\"img\": {\"path\": null, \"size\": 4, \"tags\": null}, "
                "\"pts\": [{\"x\": 3, \"y\": null}, null]}\n");
  const Table t = testing_io::read_jsonl_table(path);
  EXPECT_EQ(t.schema(),
            Schema({{"img", struct_({{"path", utf8()}, {"size", int64()}, {"tags", list(utf8())}})},
                    {"odd", utf8()},  // keys differ between objects: JSON text
                    {"pts", list(struct_({{"x", int64()}, {"y", float64()}}))}}));
  EXPECT_EQ(to_string(t.column("img").get(0)), "{'path': \"a.png\", 'size': 3, 'tags': [\"x\"]}");
  EXPECT_TRUE(t.column("img").is_null(1));
  EXPECT_EQ(to_string(t.column("img").get(2)), "{'path': null, 'size': 4, 'tags': null}");
  EXPECT_EQ(t.column("odd").value<std::string_view>(1), "{\"b\":2}");
  EXPECT_EQ(to_string(t.column("pts").get(2)), "[{'x': 3, 'y': null}, null]");

  // Written back: structs and maps are JSON objects, and the structs read back equal.
  const Table m = Table::from_columns(
      {{"img", t.column("img")},
       {"attrs", [] {
          ColumnBuilder b(map(utf8(), int64()));
          Struct e;
          e.fields = {{"key", Value{std::string("k")}}, {"value", Value{int64_t{5}}}};
          b.append_value(Value{List{{Value{e}}, map(utf8(), int64()).element()}});
          b.append_null();
          b.append_value(Value{List{{}, map(utf8(), int64()).element()}});
          return b.finish();
        }()}});
  TempDir out;
  auto w = open_partition_writer(out.path(), 0, m.schema(), FileFormat::Jsonl);
  for (const Batch& b : m.batches()) w->write(b);
  w->commit();
  const std::string written = out.file(part_file_name(0, FileFormat::Jsonl));
  EXPECT_EQ(slurp(written),
            "{\"img\":{\"path\":\"a.png\",\"size\":3,\"tags\":[\"x\"]},\"attrs\":{\"k\":5}}\n"
            "{\"img\":null,\"attrs\":null}\n"
            "{\"img\":{\"path\":null,\"size\":4,\"tags\":null},\"attrs\":{}}\n");
  const Table back = testing_io::read_jsonl_table(written);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(back.column("img").get(i), t.column("img").get(i));
}

TEST(JsonlNested, AnObjectThatDoesNotFitItsStructIsAParseErrorAtItsKey) {
  TempDir dir;
  const std::string path =
      dir.write("o.jsonl", "{\"s\": {\"a\": 1}}\n{\"s\": {\"a\": 1, \"b\": 2}}\n");
  try {
    const JsonlScan scan = plan_jsonl_scan(path, kJsonlSplitBytes, /*infer_rows=*/1);
    auto reader = open_jsonl_split(scan.splits.at(0), scan.schema, 100);
    while (reader->next()) {
    }
    FAIL() << "expected a ParseError";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("whose keys or values do not fit"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(":2:"), std::string::npos) << e.what();
  }
}

TEST(JsonlNested, CsvCannotHoldListsOrBinaryAndSaysWhichColumn) {
  TempDir dir;
  const Schema s({{"id", int64()}, {"emb", fixed_size_list(float32(), 4)}});
  try {
    check_format_holds(s, FileFormat::Csv);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("column 'emb'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_format_holds(Schema({{"b", binary()}}), FileFormat::Csv), InvalidArgument);
  EXPECT_THROW(check_format_holds(Schema({{"s", struct_({{"a", int64()}})}}), FileFormat::Csv),
               InvalidArgument);
  EXPECT_NO_THROW(check_format_holds(s, FileFormat::Jsonl));
  CsvOptions o;
  o.schema = Schema({{"x", list(int64())}});
  const std::string path = dir.write("a.csv", "x\n1\n");
  EXPECT_THROW(plan_csv_scan(path, o), InvalidArgument);
}

}  // namespace
}  // namespace ember
