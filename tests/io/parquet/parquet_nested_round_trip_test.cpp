// ember's Parquet writer read back by ember's reader for nested columns: structs, maps and
// lists nested three levels deep, random values with nulls and empties at every level, several
// row groups and pages, and a read of some of the columns only.
#include <gtest/gtest.h>

#include <random>

#include "io/output/partition_writer.h"
#include "io/parquet/parquet_scan.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

// A random value of `type`: null one time in `null_one_in` at every level, lists of 0..3 items.
Value random_value(const DataType& type, std::mt19937& rng, int null_one_in = 6) {
  if (rng() % null_one_in == 0) return Value{};
  switch (type.id()) {
    case TypeId::Int64:
      return Value{int64_t(rng() % 100000) - 50000};
    case TypeId::Int32:
      return Value{int64_t(rng() % 1000)};
    case TypeId::Float32:
      return Value{float(rng() % 1000) / 8};
    case TypeId::Utf8:
      return Value{std::string(rng() % 5, char('a' + rng() % 26))};
    case TypeId::Binary:
      return Value{std::vector<uint8_t>(rng() % 4, uint8_t(rng()))};
    case TypeId::Struct: {
      Struct s;
      for (const Field& f : type.fields()) s.fields.emplace_back(f.name, random_value(f.type, rng));
      return Value{s};
    }
    case TypeId::Map: {
      List l{{}, type.element()};
      const DataType& key = type.element().fields()[0].type;
      const DataType& value = type.element().fields()[1].type;
      for (uint32_t k = rng() % 4; k > 0; --k) {
        Struct e;
        e.fields = {{"key", random_value(key, rng, 1 << 30)}, {"value", random_value(value, rng)}};
        l.items.push_back(Value{e});
      }
      return Value{l};
    }
    default: {  // lists
      List l{{}, type.element()};
      for (uint32_t k = rng() % 4; k > 0; --k) l.items.push_back(random_value(type.element(), rng));
      return Value{l};
    }
  }
}

Schema nested_schema() {
  return Schema(
      {{"id", int64()},
       {"image", struct_({{"bytes", binary()}, {"path", utf8()}})},
       {"deep", list(list(list(int32())))},
       {"attrs", map(utf8(), struct_({{"n", int64()}, {"tags", list(utf8())}}))},
       {"points", list(struct_({{"x", int64()}, {"y", utf8()}}))},
       {"doc", struct_({{"emb", list(float32())},
                        {"meta", struct_({{"lang", utf8()}, {"ids", list(int64())}})}})}});
}

Table random_table(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  const Schema schema = nested_schema();
  std::vector<std::pair<std::string, Column>> columns;
  for (const Field& f : schema.fields()) {
    ColumnBuilder b(f.type);
    for (int64_t i = 0; i < n; ++i)
      b.append_value(f.name == "id" ? Value{i} : random_value(f.type, rng));
    columns.emplace_back(f.name, b.finish());
  }
  return Table::from_columns(std::move(columns));
}

Table read_back(const std::string& path, const std::vector<std::string>& columns) {
  const ParquetScan scan = plan_parquet_scan(path, columns);
  std::vector<Batch> batches;
  for (size_t p = 0; p < scan.parts.size(); ++p) {
    auto r = open_parquet_part(scan, static_cast<int>(p), 777);
    while (auto b = r->next()) batches.push_back(std::move(*b));
  }
  return Table(scan.schema, std::move(batches));
}

class NestedCodec : public testing::TestWithParam<Compression> {};

TEST_P(NestedCodec, EveryNestedValueRoundTrips) {
  testing_io::TempDir dir;
  const int64_t n = 70000;  // two row groups, the first of several pages per leaf
  const Table t = random_table(n, 7);
  ParquetWriteOptions o;
  o.compression = GetParam();
  o.row_group_rows = 40000;
  auto w = open_partition_writer(dir.path(), 0, t.schema(), FileFormat::Parquet,
                                 FileWriteOptions{o, {}});
  for (const Batch& b : t.batches())
    w->write(b.slice(0, 12345)), w->write(b.slice(12345, n - 12345));
  w->commit();
  const std::string path = dir.file("part-00000.parquet");
  const Table back = read_back(path, {});
  ASSERT_EQ(back.schema(), t.schema());
  ASSERT_EQ(back.num_rows(), n);
  for (const Field& f : t.schema().fields()) {
    const Column want = t.column(f.name), got = back.column(f.name);
    EXPECT_EQ(got.null_count(), want.null_count()) << f.name;
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got.get(i), want.get(i)) << f.name << " row " << i;
  }
  // Some columns only, in another order: each reads its own leaves.
  const Table some = read_back(path, {"doc", "id", "attrs"});
  for (const std::string name : {"doc", "id", "attrs"}) {
    const Column want = t.column(name), got = some.column(name);
    for (int64_t i = 0; i < n; i += 7) ASSERT_EQ(got.get(i), want.get(i)) << name << " row " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Parquet, NestedCodec,
                         testing::Values(Compression::Snappy, Compression::Zstd,
                                         Compression::None));

}  // namespace
}  // namespace ember
