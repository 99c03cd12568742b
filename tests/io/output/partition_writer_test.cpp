// Output files: exact CSV/JSONL text, atomic commit of each file, and write errors.
#include "io/output/partition_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "ember/error.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_io::error_of;
using testing_io::read_file;
using testing_io::TempDir;

Table small_table() {
  return Table::from_columns({
      {"id", Column::from(std::vector<std::optional<int64_t>>{1, std::nullopt, -3})},
      {"x", Column::from(std::vector<std::optional<double>>{0.1, 2.0, std::nullopt})},
      {"ok", Column::from(std::vector<std::optional<bool>>{true, false, std::nullopt})},
      {"s",
       Column::from(std::vector<std::optional<std::string>>{"a,b", std::string(""), std::nullopt})},
  });
}

void write_table(const std::string& dir, int part, const Table& t, FileFormat format) {
  auto w = open_partition_writer(dir, part, t.schema(), format);
  for (const Batch& b : t.batches()) w->write(b);
  w->commit();
}

TEST(PartitionWriter, CsvText) {
  TempDir dir;
  write_table(dir.path(), 7, small_table(), FileFormat::Csv);
  EXPECT_EQ(read_file(dir.file("part-00007.csv")),
            "id,x,ok,s\n"
            "1,0.1,true,\"a,b\"\n"
            ",2.0,false,\"\"\n"
            "-3,,,\n");
}

TEST(PartitionWriter, JsonlText) {
  TempDir dir;
  const Table t = Table::from_columns({
      {"s", Column::from(std::vector<std::optional<std::string>>{std::string("q\"\\\n\x01\xc3\xa9"),
                                                                 std::nullopt})},
      {"x", Column::from(std::vector<double>{1.5, std::numeric_limits<double>::infinity()})},
  });
  write_table(dir.path(), 0, t, FileFormat::Jsonl);
  EXPECT_EQ(read_file(dir.file("part-00000.jsonl")),
            "{\"s\":\"q\\\"\\\\\\u000a\\u0001\xc3\xa9\",\"x\":1.5}\n"
            "{\"s\":null,\"x\":null}\n");
}

TEST(PartitionWriter, NothingVisibleUntilCommit) {
  TempDir dir;
  const Table t = small_table();
  auto w = open_partition_writer(dir.path(), 3, t.schema(), FileFormat::Csv);
  w->write(t.batches().at(0));
  EXPECT_FALSE(fs::exists(dir.file("part-00003.csv")));
  EXPECT_TRUE(fs::exists(dir.file(".part-00003.csv.tmp")));
  w->commit();
  EXPECT_TRUE(fs::exists(dir.file("part-00003.csv")));
  EXPECT_FALSE(fs::exists(dir.file(".part-00003.csv.tmp")));
}

TEST(PartitionWriter, UncommittedWriterRemovesItsTempFile) {
  TempDir dir;
  const Table t = small_table();
  {
    auto w = open_partition_writer(dir.path(), 1, t.schema(), FileFormat::Jsonl);
    w->write(t.batches().at(0));
    EXPECT_TRUE(fs::exists(dir.file(".part-00001.jsonl.tmp")));
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(PartitionWriter, FullDeviceIsAnIoErrorNamingTheFile) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TempDir dir;
  // The temp file is opened through this link, so every write goes to a device that is full.
  fs::create_symlink("/dev/full", dir.file(".part-00000.csv.tmp"));
  const Table t = small_table();
  const std::string msg = error_of<IoError>([&] {
    auto w = open_partition_writer(dir.path(), 0, t.schema(), FileFormat::Csv);
    w->write(t.batches().at(0));
    w->commit();
  });
  EXPECT_THAT(msg, HasSubstr(".part-00000.csv.tmp"));
  EXPECT_THAT(msg, HasSubstr("No space left"));
  EXPECT_FALSE(fs::exists(dir.file("part-00000.csv")));
}

TEST(PartitionWriter, OpeningInAMissingDirectoryIsAnIoError) {
  TempDir dir;
  const std::string msg = error_of<IoError>(
      [&] { open_partition_writer(dir.file("nope"), 0, small_table().schema(), FileFormat::Csv); });
  EXPECT_THAT(msg, HasSubstr(dir.file("nope")));
}

TEST(PartitionWriter, PartFileNames) {
  EXPECT_EQ(part_file_name(7, FileFormat::Csv), "part-00007.csv");
  EXPECT_EQ(part_file_name(123456, FileFormat::Jsonl), "part-123456.jsonl");
  EXPECT_EQ(part_file_name(3, FileFormat::Parquet), "part-00003.parquet");
  EXPECT_EQ(part_file_name(3, FileFormat::Arrow), "part-00003.arrow");
  // Every format's parts, and only parts: the output directory checks count them as ember's.
  for (const FileFormat f :
       {FileFormat::Csv, FileFormat::Jsonl, FileFormat::Parquet, FileFormat::Arrow}) {
    EXPECT_TRUE(is_part_file_name(part_file_name(0, f))) << file_extension(f);
  }
  for (const char* n : {"part-.csv", "part-1.jsonl"}) EXPECT_TRUE(is_part_file_name(n)) << n;
  for (const char* n : {"part-1.orc", "part-1csv", "part-1.csvx", "data.csv", "_SUCCESS",
                        ".part-00001.csv.tmp", "part-1.jsonl.tmp"})
    EXPECT_FALSE(is_part_file_name(n)) << n;
}

}  // namespace
}  // namespace ember
