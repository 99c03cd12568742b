// Arrow IPC files written by ember and read back by ember: every type (structs and maps
// included), slices at odd offsets, several record batches, uncompressed and with each body
// compression, in the file and the stream format; and damaged files ending in an ember::Error,
// never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <tuple>

#include "io/arrow/arrow_scan.h"
#include "io/output/partition_writer.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

using Words = std::vector<std::optional<std::string>>;

Table sample() {
  std::vector<std::optional<int32_t>> i32;
  std::vector<std::optional<std::string>> s;
  std::vector<std::optional<Timestamp>> ts;
  std::vector<std::optional<Words>> tags;
  std::vector<std::optional<bool>> b;
  // A struct holding a list, and a map whose values are structs: nulls at every level.
  ColumnBuilder point(struct_({{"x", int64()}, {"name", utf8()}, {"xs", list(int32())}}));
  ColumnBuilder attrs(map(utf8(), struct_({{"w", float64()}})));
  for (int i = 0; i < 301; ++i) {
    if (i % 7 == 0) {
      point.append_null();
    } else {
      point.append_value(Struct{{{"x", i % 2 ? Value{int64_t{i}} : Value{}},
                                 {"name", Value{std::string(size_t(i % 4), 'n')}},
                                 {"xs", Value{List{{Value{int64_t{i}}, Value{}}, int32()}}}}});
    }
    if (i % 9 == 0) {
      attrs.append_null();
    } else {
      List entries;
      for (int k = 0; k < i % 3; ++k) {
        const Value w = k == 1 ? Value{} : Value{Struct{{{"w", Value{i * 0.5 + k}}}}};
        entries.items.push_back(Struct{{{"key", Value{"k" + std::to_string(k)}}, {"value", w}}});
      }
      attrs.append_value(Value{std::move(entries)});
    }
    i32.push_back(i % 3 ? std::optional<int32_t>(i) : std::nullopt);
    s.push_back(i % 5 ? std::optional<std::string>(std::string(size_t(i % 7), 'a')) : std::nullopt);
    ts.push_back(Timestamp{i * 17});
    tags.push_back(i % 4 ? std::optional<Words>(Words(size_t(i % 3), "t")) : std::nullopt);
    b.push_back(i % 6 ? std::optional<bool>(i % 2 == 0) : std::nullopt);
  }
  return Table::from_columns({{"i32", Column::from(i32)},
                              {"s", Column::from(s)},
                              {"ts", Column::from(ts)},
                              {"tags", Column::from(tags)},
                              {"b", Column::from(b)},
                              {"point", point.finish()},
                              {"attrs", attrs.finish()}});
}

Table read_all(const std::string& glob) {
  const ArrowScan scan = plan_arrow_scan(glob);
  std::vector<Batch> batches;
  for (size_t p = 0; p < scan.parts.size(); ++p) {
    auto r = open_arrow_part(scan, static_cast<int>(p), 64);
    while (auto batch = r->next()) batches.push_back(std::move(*batch));
  }
  return Table(scan.schema, std::move(batches));
}

std::string write_sample(const testing_io::TempDir& dir, Compression c = Compression::None,
                         bool stream = false) {
  const Table t = sample();
  FileWriteOptions options;
  options.arrow.compression = c;
  const FileFormat format = stream ? FileFormat::ArrowStream : FileFormat::Arrow;
  auto w = open_partition_writer(dir.path(), 0, t.schema(), format, options);
  for (const Batch& b : t.batches()) {
    w->write(b.slice(0, 13));  // odd offsets: bitmaps and offsets must be rebased
    w->write(b.slice(13, 200));
    w->write(b.slice(213, 88));
  }
  w->commit();
  return dir.file(stream ? "part-00000.arrows" : "part-00000.arrow");
}

/// A body compression, and whether the stream format is written.
class ArrowIpc : public testing::TestWithParam<std::tuple<Compression, bool>> {
 protected:
  std::string write(const testing_io::TempDir& dir) const {
    return write_sample(dir, std::get<0>(GetParam()), std::get<1>(GetParam()));
  }
};

TEST_P(ArrowIpc, EveryTypeRoundTripsThroughSlicedBatches) {
  testing_io::TempDir dir;
  const std::string path = write(dir);
  if (std::get<1>(GetParam())) {  // the stream format: no magic, an end-of-stream marker
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    EXPECT_NE(bytes.substr(0, 6), "ARROW1");
    EXPECT_EQ(bytes.substr(bytes.size() - 8), std::string("\xff\xff\xff\xff\0\0\0\0", 8));
  }
  EXPECT_EQ(plan_arrow_scan(path).parts.size(), 3u) << "one partition per record batch";
  const Table want = sample(), got = read_all(path);
  ASSERT_EQ(got.schema(), want.schema());
  for (const Field& f : want.schema().fields()) {
    const Column g = got.column(f.name), w = want.column(f.name);
    for (int64_t i = 0; i < w.size(); ++i) ASSERT_EQ(g.get(i), w.get(i)) << f.name << " row " << i;
  }
}

TEST_P(ArrowIpc, DamagedFilesAreErrorsNotCrashes) {
  testing_io::TempDir dir;
  std::ifstream in(write(dir), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::mt19937 rng(11);
  int errors = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string damaged = bytes;
    if (trial % 10 == 0) damaged.resize(rng() % damaged.size());
    for (int k = 0; k < 1 + trial % 3; ++k) {
      if (damaged.empty()) break;
      const size_t at = rng() % damaged.size();
      damaged[at] = static_cast<char>(damaged[at] ^ (1 << (rng() % 8)));
    }
    const std::string path = dir.write("d" + std::to_string(trial) + ".arrow", damaged);
    try {
      read_all(path);
    } catch (const Error& e) {
      ++errors;
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(errors, 0);
}

// Arrow declares a map's keys non-nullable: a null key is refused, naming the column, rather
// than written into a file other readers would reject.
TEST(ArrowMaps, ANullKeyIsAnErrorNamingTheColumn) {
  const DataType type = map(utf8(), int64());
  ColumnBuilder m(type);
  m.append_value(List{{Struct{{{"key", Value{std::string("k")}}, {"value", Value{int64_t{1}}}}}},
                      type.element()});
  m.append_value(List{{Struct{{{"key", Value{}}, {"value", Value{int64_t{2}}}}}}, type.element()});
  const Table t = Table::from_columns({{"attrs", m.finish()}});
  testing_io::TempDir dir;
  auto w = open_partition_writer(dir.path(), 0, t.schema(), FileFormat::Arrow, {});
  w->write(t.batches()[0].slice(0, 1));  // the row with a key goes out
  try {
    w->write(t.batches()[0]);
    FAIL() << "a null map key was written";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("column 'attrs'"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Compressions, ArrowIpc,
                         testing::Combine(testing::Values(Compression::None, Compression::Zstd,
                                                          Compression::Lz4),
                                          testing::Bool()),
                         [](const auto& info) {
                           const Compression c = std::get<0>(info.param);
                           return std::string(c == Compression::None   ? "None"
                                              : c == Compression::Zstd ? "Zstd"
                                                                       : "Lz4") +
                                  (std::get<1>(info.param) ? "Stream" : "File");
                         });

// Compressible columns shrink under both codecs; buffers that would not shrink (random bytes)
// are stored as they are (length -1) and still read back.
TEST(ArrowCompression, ShrinksWhatCompressesAndKeepsWhatDoesNot) {
  std::mt19937_64 rng(5);
  std::vector<int64_t> repeated(100000, 42), noise(100000);
  for (int64_t& x : noise) x = int64_t(rng());
  const Table t = Table::from_columns({{"r", Column::from(repeated)}, {"n", Column::from(noise)}});
  std::map<Compression, int64_t> sizes;
  for (Compression c : {Compression::None, Compression::Zstd, Compression::Lz4}) {
    testing_io::TempDir dir;
    FileWriteOptions options;
    options.arrow.compression = c;
    auto w = open_partition_writer(dir.path(), 0, t.schema(), FileFormat::Arrow, options);
    for (const Batch& b : t.batches()) w->write(b);
    w->commit();
    const std::string path = dir.file("part-00000.arrow");
    sizes[c] = int64_t(std::filesystem::file_size(path));
    const Table got = read_all(path);
    for (const char* name : {"r", "n"}) {
      const Column g = got.column(name), want = t.column(name);
      for (int64_t i = 0; i < want.size(); i += 997) ASSERT_EQ(g.get(i), want.get(i)) << name;
    }
  }
  // 800 KB of noise stays; 800 KB of one value nearly vanishes.
  EXPECT_LT(sizes[Compression::Zstd], sizes[Compression::None] * 6 / 10);
  EXPECT_LT(sizes[Compression::Lz4], sizes[Compression::None] * 6 / 10);
  EXPECT_GT(sizes[Compression::Zstd], 800000);
}

}  // namespace
}  // namespace ember
