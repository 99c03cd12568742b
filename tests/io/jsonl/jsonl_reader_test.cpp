// read_jsonl: inference, nulls, nested values, splits and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ember/error.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing_io::error_of;
using testing_io::read_jsonl_table;
using testing_io::TempDir;

TEST(JsonlReader, InfersKeysInFirstSeenOrderAndTypes) {
  TempDir dir;
  const std::string p = dir.write("t.jsonl",
                                  "{\"i\": 1, \"f\": 1, \"s\": \"a\", \"n\": null}\n"
                                  "\n"
                                  "{\"b\": true, \"f\": 2.5, \"i\": -3, \"o\": {\"x\": [1, 2]}}\r\n"
                                  "  \n"
                                  "{\"a\": [1,\"two\"], \"s\": \"é\\n\\\"q\\\"\", \"b\": false}");
  const Table t = read_jsonl_table(p);
  EXPECT_EQ(t.schema(), Schema({{"i", int64()},
                                {"f", float64()},
                                {"s", utf8()},
                                {"n", utf8()},
                                {"b", boolean()},
                                {"o", struct_({{"x", list(int64())}})},
                                {"a", utf8()}}));
  ASSERT_EQ(t.num_rows(), 3);
  EXPECT_EQ(t.column("i").value<int64_t>(1), -3);
  EXPECT_TRUE(t.column("i").is_null(2));  // missing key
  EXPECT_EQ(t.column("f").value<double>(0), 1.0);
  EXPECT_EQ(t.column("f").value<double>(1), 2.5);
  EXPECT_EQ(t.column("s").value<std::string>(2), "é\n\"q\"");
  EXPECT_EQ(t.column("n").null_count(), 3);
  EXPECT_TRUE(t.column("b").is_null(0));
  EXPECT_EQ(t.column("b").value<bool>(1), true);
  EXPECT_EQ(to_string(t.column("o").get(1)), "{'x': [1, 2]}");
  EXPECT_EQ(t.column("a").value<std::string>(2), "[1,\"two\"]");
}

TEST(JsonlReader, ObjectsWithoutKeysAreStillRows) {
  TempDir dir;
  const std::string p = dir.write("t.jsonl", "{}\n{}\n\n{ }\n");
  const Table t = read_jsonl_table(p);
  EXPECT_EQ(t.schema().num_fields(), 0);
  EXPECT_EQ(t.num_rows(), 3);
}

TEST(JsonlReader, KeyUnseenInTheSampleIsIgnored) {
  TempDir dir;
  std::string content;
  for (int i = 0; i < 10; ++i) content += "{\"k\": " + std::to_string(i) + "}\n";
  content += "{\"k\": 10, \"late\": \"x\"}\n";
  const std::string p = dir.write("t.jsonl", content);
  const JsonlScan scan = plan_jsonl_scan(p, kJsonlSplitBytes, /*infer_rows=*/5);
  EXPECT_EQ(scan.schema, Schema({{"k", int64()}}));
  auto reader = open_jsonl_split(scan.splits.at(0), scan.schema, 100);
  auto batch = reader->next();
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->num_rows(), 11);
  EXPECT_EQ(batch->column("k").value<int64_t>(10), 10);
}

TEST(JsonlReader, WrongTypeLaterGivesLineAndColumn) {
  TempDir dir;
  std::string content;
  for (int i = 0; i < 10; ++i) content += "{\"id\": " + std::to_string(i) + ", \"v\": 1}\n";
  content += "{\"id\": 10, \"v\": \"text\"}\n";  // line 11; "v" starts at byte column 12
  const std::string p = dir.write("t.jsonl", content);
  const JsonlScan scan = plan_jsonl_scan(p, kJsonlSplitBytes, 3);
  const std::string msg = error_of<ParseError>([&] {
    auto reader = open_jsonl_split(scan.splits.at(0), scan.schema, 100);
    while (reader->next()) {
    }
  });
  EXPECT_THAT(msg, StartsWith(p + ":11:12:"));
  EXPECT_THAT(msg, HasSubstr("'v'"));
  EXPECT_THAT(msg, HasSubstr("int64"));
}

TEST(JsonlReader, ByteOrderMarkIsSkipped) {
  TempDir dir;
  const std::string p = dir.write("t.jsonl", "\xEF\xBB\xBF{\"a\": 1}\n{\"a\": 2}\n");
  const Table t = read_jsonl_table(p);
  EXPECT_EQ(t.schema(), Schema({{"a", int64()}}));
  ASSERT_EQ(t.num_rows(), 2);
  EXPECT_EQ(t.column("a").value<int64_t>(0), 1);
}

TEST(JsonlReader, DuplicateKeyInTheSampleIsAnError) {
  TempDir dir;
  // JSON parsers disagree on which of two equal keys wins, so neither value is picked.
  const std::string p = dir.write("t.jsonl", "{\"a\": 1}\n{\"a\": 2, \"b\": 0, \"a\": 3}\n");
  const std::string msg = error_of<ParseError>([&] { read_jsonl_table(p); });
  EXPECT_THAT(msg, StartsWith(p + ":2:18:"));
  EXPECT_THAT(msg, HasSubstr("'a'"));
  EXPECT_THAT(msg, HasSubstr("twice"));
}

TEST(JsonlReader, DuplicateKeyAfterTheSampleIsAnError) {
  TempDir dir;
  std::string content;
  for (int i = 0; i < 10; ++i) content += "{\"k\": " + std::to_string(i) + "}\n";
  content += "{\"k\": 1, \"k\": 2}\n";  // line 11
  const std::string p = dir.write("t.jsonl", content);
  const JsonlScan scan = plan_jsonl_scan(p, kJsonlSplitBytes, 3);
  const std::string msg = error_of<ParseError>([&] {
    auto reader = open_jsonl_split(scan.splits.at(0), scan.schema, 100);
    while (reader->next()) {
    }
  });
  EXPECT_THAT(msg, StartsWith(p + ":11:"));
  EXPECT_THAT(msg, HasSubstr("'k'"));
}

TEST(JsonlReader, MalformedJsonGivesTheLine) {
  TempDir dir;
  const std::string p = dir.write("t.jsonl", "{\"a\": 1}\n\n{\"a\": 2,,}\n");
  const std::string msg = error_of<ParseError>([&] { read_jsonl_table(p); });
  EXPECT_THAT(msg, StartsWith(p + ":3:"));
  EXPECT_THAT(msg, HasSubstr("malformed JSON"));
}

TEST(JsonlReader, NonObjectLineIsAnError) {
  TempDir dir;
  const std::string p = dir.write("t.jsonl", "{\"a\": 1}\n[1, 2]\n");
  EXPECT_THAT(error_of<ParseError>([&] { read_jsonl_table(p); }), StartsWith(p + ":2:1:"));
}

TEST(JsonlReader, InvalidUtf8IsAnError) {
  TempDir dir;
  const std::string p = dir.write("t.jsonl", "{\"a\": \"ok\"}\n{\"a\": \"\xff\"}\n");
  EXPECT_THAT(error_of<ParseError>([&] { read_jsonl_table(p); }), StartsWith(p + ":2:"));
}

TEST(JsonlReader, GlobAndSplitsReadEveryRowOnceInOrder) {
  TempDir dir;
  int64_t next = 0;
  for (int f = 0; f < 3; ++f) {
    std::string content;
    for (int r = 0; r < 30000; ++r, ++next) {
      content += "{\"id\":" + std::to_string(next) + ",\"s\":\"row " + std::to_string(next) +
                 "\\n\",\"x\":" + std::to_string(next) + ".25}\n";
    }
    dir.write("f" + std::to_string(f) + ".jsonl", content);
  }
  const JsonlScan scan = plan_jsonl_scan(dir.file("*.jsonl"), 64 << 10);
  EXPECT_GT(scan.splits.size(), 20u);
  const Table t = read_jsonl_table(dir.file("*.jsonl"), 64 << 10, 3000);
  ASSERT_EQ(t.num_rows(), next);
  const Column id = t.column("id");
  const Column s = t.column("s");
  const Column x = t.column("x");
  for (int64_t i = 0; i < next; ++i) {
    ASSERT_EQ(id.value<int64_t>(i), i);
    ASSERT_EQ(s.value<std::string>(i), "row " + std::to_string(i) + "\n");
    ASSERT_EQ(x.value<double>(i), static_cast<double>(i) + 0.25);
  }
}

TEST(JsonlReader, EveryCutPointOfASmallFile) {
  TempDir dir;
  std::string content;
  for (int i = 0; i < 30; ++i) content += "{\"id\":" + std::to_string(i) + "}\n";
  const std::string p = dir.write("t.jsonl", content);
  for (int64_t split = 1; split <= 60; ++split) {
    const Table t = read_jsonl_table(p, split, 4);
    ASSERT_EQ(t.num_rows(), 30) << "split_bytes=" << split;
    for (int64_t i = 0; i < 30; ++i) ASSERT_EQ(t.column("id").value<int64_t>(i), i);
  }
}

TEST(JsonlReader, ErrorInALaterSplitGivesTheTrueLine) {
  TempDir dir;
  std::string content;
  for (int i = 0; i < 3000; ++i) content += "{\"id\":" + std::to_string(i) + "}\n";
  content += "{\"id\": oops}\n";  // line 3001
  const std::string p = dir.write("t.jsonl", content);
  const std::string msg = error_of<ParseError>([&] { read_jsonl_table(p, 1000); });
  EXPECT_THAT(msg, StartsWith(p + ":3001:"));
}

TEST(JsonlReader, MissingFileIsAnIoError) {
  TempDir dir;
  EXPECT_THAT(error_of<IoError>([&] { read_jsonl_table(dir.file("none.jsonl")); }),
              HasSubstr(dir.file("none.jsonl")));
}

}  // namespace
}  // namespace ember
