// apache/arrow-testing's integration files (tests/data/arrow-testing), in the file and the
// stream format, through the Arrow reader itself: every file whose types ember reads decodes whole
// (the sanitizer builds run this), a few values checked here; each value of each file is compared
// with its golden JSON by python/tests/test_arrow_testing.py. A file with a union or interval
// column is an InvalidArgument naming the column.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ember/error.h"
#include "io/arrow/arrow_scan.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

fs::path data_dir() {
  const char* env = std::getenv("EMBER_TEST_DATA");
  const fs::path data =
      env != nullptr ? fs::path(env) : fs::path(__FILE__).parent_path() / "../../data";
  return data / "arrow-testing";
}

Table read_all(const fs::path& path) {
  const ArrowScan scan = plan_arrow_scan(path.string());
  std::vector<Batch> batches;
  for (size_t p = 0; p < scan.parts.size(); ++p) {
    auto reader = open_arrow_part(scan, static_cast<int>(p), 7);
    while (auto b = reader->next()) batches.push_back(std::move(*b));
  }
  return Table(scan.schema, std::move(batches));
}

fs::path file(const std::string& dir, const std::string& name) {
  return data_dir() / dir / ("generated_" + name + ".arrow_file");
}

TEST(ArrowTestingFiles, EveryFileReadsWholeOrIsRefusedNamingItsColumn) {
  int read = 0, refused = 0;
  for (const auto& dir : fs::directory_iterator(data_dir())) {
    if (!dir.is_directory()) continue;
    for (const auto& entry : fs::directory_iterator(dir.path())) {
      const fs::path ext = entry.path().extension();
      if (ext != ".arrow_file" && ext != ".stream") continue;
      try {
        const Table t = read_all(entry.path());
        for (const Field& f : t.schema().fields()) EXPECT_EQ(t.column(f.name).size(), t.num_rows());
        ++read;
      } catch (const InvalidArgument& e) {
        EXPECT_THAT(e.what(),
                    ::testing::MatchesRegex(".*column '.*' is of Arrow type (Union|Interval), "
                                            "which ember does not read from Arrow IPC"))
            << entry.path();
        ++refused;
      }
    }
  }
  EXPECT_EQ(read, 2 * 25);  // the file and the stream format of each
  EXPECT_EQ(refused, 2 * 2);
}

TEST(ArrowTestingFiles, AStreamReadsAsItsFileDoes) {
  for (const std::string name : {"dictionary", "datetime", "primitive_large_offsets", "map",
                                 "nested_dictionary", "recursive_nested"}) {
    const fs::path f = file("1.0.0-littleendian", name);
    fs::path stream = f;
    stream.replace_extension(".stream");
    const Table a = read_all(f), b = read_all(stream);
    EXPECT_EQ(a.schema(), b.schema()) << name;
    EXPECT_EQ(a.to_string(1000), b.to_string(1000)) << name;
    EXPECT_GT(a.num_rows(), 0) << name;
  }
  // A stream cut inside a message is a ParseError naming the file.
  const fs::path whole = data_dir() / "1.0.0-littleendian" / "generated_primitive.stream";
  const std::string cut = (fs::path(testing::TempDir()) / "cut.stream").string();
  fs::copy_file(whole, cut, fs::copy_options::overwrite_existing);
  fs::resize_file(cut, fs::file_size(whole) / 2);
  EXPECT_THROW(
      {
        try {
          read_all(cut);
        } catch (const ParseError& e) {
          EXPECT_THAT(e.what(), ::testing::HasSubstr("cut.stream"));
          throw;
        }
      },
      ParseError);
}

TEST(ArrowTestingFiles, TypesConvertAsDocumented) {
  const Table dt = read_all(file("1.0.0-littleendian", "datetime"));
  EXPECT_EQ(dt.schema().to_string(),
            "f0: date32, f1: timestamp[us], f2: int64, f3: int64, f4: int64, f5: int64, "
            "f6: timestamp[us], f7: timestamp[us], f8: timestamp[us], f9: timestamp[us], "
            "f10: timestamp[us], f11: timestamp[us], f12: timestamp[us], f13: timestamp[us], "
            "f14: timestamp[us]");
  // time32[s] 22815 s after midnight, time64[ns] 30734393435189 ns: microseconds.
  EXPECT_EQ(dt.column("f2").value<int64_t>(2), 22815 * int64_t{1000000});
  EXPECT_EQ(dt.column("f5").value<int64_t>(3), 30734393435);
  // date64 milliseconds, timestamp[ns] truncated to microseconds.
  EXPECT_EQ(dt.column("f1").value<Timestamp>(2).micros, int64_t{213620221665533} * 1000);
  EXPECT_EQ(dt.column("f9").value<Timestamp>(3).micros, int64_t{-3161293922495111});

  const Table dec = read_all(file("1.0.0-littleendian", "decimal"));
  EXPECT_EQ(dec.column("f0").type(), float64());
  EXPECT_DOUBLE_EQ(dec.column("f0").value<double>(0), 128.10);
  // 38 digits at scale 2, through 128-bit two's complement, to the nearest double or two.
  EXPECT_NEAR(dec.column("f33").value<double>(0) / 945770970795482492271313614958326691.70, 1,
              1e-14);

  const Table null = read_all(file("1.0.0-littleendian", "null"));
  EXPECT_EQ(null.column("f0").type(), DataType());
  EXPECT_EQ(null.column("f0").null_count(), null.num_rows());

  const Table large = read_all(file("1.0.0-littleendian", "primitive_large_offsets"));
  EXPECT_EQ(large.column("largeutf8_nonnullable").type(), utf8());
  EXPECT_EQ(large.column("largebinary_nonnullable").value<std::string>(1),
            std::string("\xE3\x19", 2));

  const Table ext = read_all(file("1.0.0-littleendian", "extension"));
  EXPECT_EQ(ext.column("uuids").type(), binary());
  for (int64_t i = 0; i < ext.num_rows(); ++i) {
    if (ext.column("uuids").is_valid(i)) {
      EXPECT_EQ(ext.column("uuids").value<std::string>(i).size(), 16u);
    }
  }
}

TEST(ArrowTestingFiles, StructsAndMapsReadWithTheirNullsAndNames) {
  const Table nested = read_all(file("1.0.0-littleendian", "nested"));
  const Column st = nested.column("struct_nullable");
  EXPECT_EQ(st.type(), struct_({{"f1", int32()}, {"f2", utf8()}}));
  // Row 1: the struct valid, f1 null; row 2: the struct null; row 3: both fields valid.
  EXPECT_EQ(st.get(1), Value(Struct{{{"f1", Value{}}, {"f2", Value{std::string("i°oÂrme")}}}}));
  EXPECT_TRUE(st.is_null(2));
  EXPECT_TRUE(st.field("f2").is_null(2));  // the struct's null reaches its fields
  EXPECT_EQ(st.field("f1").value<int32_t>(3), -320634108);

  // Arrow names the map's entries some_entries/some_key/some_value: ember's map(key, value).
  const Table maps = read_all(file("1.0.0-littleendian", "map_non_canonical"));
  const Column m = maps.column("map_other_names");
  EXPECT_EQ(m.type(), map(utf8(), int32()));
  EXPECT_TRUE(m.is_null(2));
  EXPECT_EQ(m.list(1).size(), 0);
  const Column entries = m.list(3);
  ASSERT_EQ(entries.size(), 3);
  EXPECT_EQ(entries.field("key").value<std::string>(2), "3e61ewr");
  EXPECT_TRUE(entries.field("value").is_null(0));
  EXPECT_EQ(entries.field("value").value<int32_t>(1), 1717179135);
  EXPECT_TRUE(entries.field("value").is_null(2));

  // A struct of two unnamed fields: f0 and f1; the repeated top-level name renamed.
  const Table dup = read_all(file("1.0.0-littleendian", "duplicate_fieldnames"));
  EXPECT_EQ(dup.schema().to_string(),
            "ints: int32, ints_1: int32, struct: struct<f0: int32, f1: utf8>");
  EXPECT_EQ(dup.column("struct").field("f0").value<int32_t>(0), 1296194679);

  // A dictionary-encoded struct whose fields are dictionary-encoded text: plain values.
  const Table dict = read_all(file("1.0.0-littleendian", "nested_dictionary"));
  EXPECT_EQ(dict.column("struct_dict").type(),
            struct_({{"str_dict_a", utf8()}, {"str_dict_b", utf8()}}));
  const Table lists = read_all(file("1.0.0-littleendian", "recursive_nested"));
  EXPECT_EQ(lists.column("structs_list").type(), list(struct_({{"f1", int32()}, {"f2", utf8()}})));
}

}  // namespace
}  // namespace ember
