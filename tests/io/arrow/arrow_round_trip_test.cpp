// Arrow IPC files written by ember and read back by ember: every type, slices at odd offsets,
// several record batches; and damaged files ending in an ember::Error, never a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

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
  for (int i = 0; i < 301; ++i) {
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
                              {"b", Column::from(b)}});
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

std::string write_sample(const testing_io::TempDir& dir) {
  const Table t = sample();
  auto w = open_partition_writer(dir.path(), 0, t.schema(), FileFormat::Arrow);
  for (const Batch& b : t.batches()) {
    w->write(b.slice(0, 13));  // odd offsets: bitmaps and offsets must be rebased
    w->write(b.slice(13, 200));
    w->write(b.slice(213, 88));
  }
  w->commit();
  return dir.file("part-00000.arrow");
}

TEST(ArrowIpc, EveryTypeRoundTripsThroughSlicedBatches) {
  testing_io::TempDir dir;
  const std::string path = write_sample(dir);
  EXPECT_EQ(plan_arrow_scan(path).parts.size(), 3u) << "one partition per record batch";
  const Table want = sample(), got = read_all(path);
  ASSERT_EQ(got.schema(), want.schema());
  for (const Field& f : want.schema().fields()) {
    const Column g = got.column(f.name), w = want.column(f.name);
    for (int64_t i = 0; i < w.size(); ++i) ASSERT_EQ(g.get(i), w.get(i)) << f.name << " row " << i;
  }
}

TEST(ArrowIpc, DamagedFilesAreErrorsNotCrashes) {
  testing_io::TempDir dir;
  std::ifstream in(write_sample(dir), std::ios::binary);
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

}  // namespace
}  // namespace ember
