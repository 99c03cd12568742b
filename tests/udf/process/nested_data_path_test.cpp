// The types beyond the first four through a worker process: int32, float32, binary, timestamps,
// lists with nulls at both levels, nested lists, embeddings, structs and maps, sliced at odd
// offsets.
#include <gtest/gtest.h>

#include <optional>

#include "test_udfs.h"
#include "udf/actor.h"
#include "worker_test_kit.h"

namespace ember::test {
namespace {

std::vector<Column> newer_columns() {
  std::vector<std::optional<int32_t>> i32;
  std::vector<std::optional<float>> f32;
  std::vector<std::optional<std::vector<uint8_t>>> bytes;
  std::vector<std::optional<Timestamp>> times;
  std::vector<std::optional<std::vector<std::optional<std::string>>>> tags;
  std::vector<std::vector<float>> embeddings;
  std::vector<std::vector<std::vector<int64_t>>> nested;
  for (int i = 0; i < 157; ++i) {
    const bool null = i % 7 == 3;
    i32.push_back(null ? std::nullopt : std::optional<int32_t>(i * 1000 - 70000));
    f32.push_back(null ? std::nullopt : std::optional<float>(static_cast<float>(i) / 3));
    bytes.push_back(null ? std::nullopt
                         : std::optional<std::vector<uint8_t>>(
                               std::vector<uint8_t>(size_t(i % 5), uint8_t(i * 37))));
    times.push_back(null ? std::nullopt : std::optional<Timestamp>(Timestamp{i * 86400000001LL}));
    std::vector<std::optional<std::string>> t;
    for (int k = 0; k < i % 4; ++k)
      t.push_back(k == 1 ? std::nullopt
                         : std::optional<std::string>(std::string(size_t(k + 1), 'x')));
    tags.push_back(null ? std::nullopt : std::optional(t));
    embeddings.push_back({float(i), float(i) + 0.5f, -float(i)});
    nested.push_back({{i}, {}, {i, i + 1}});
  }
  Column fixed = Column::from(embeddings);
  ColumnBuilder b(fixed_size_list(float32(), 3));
  for (int64_t i = 0; i < fixed.size(); ++i) b.append_from(fixed, i);
  return {Column::from(i32),  Column::from(f32), Column::from(bytes), Column::from(times),
          Column::from(tags), b.finish(),        Column::from(nested)};
}

void expect_same_column(const Column& got, const Column& want) {
  ASSERT_EQ(got.type(), want.type());
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(got.null_count(), want.null_count());
  for (int64_t i = 0; i < want.size(); ++i) ASSERT_EQ(got.get(i), want.get(i)) << "row " << i;
}

TEST(ProcessData, EveryNewerTypeAndSliceCrossesIntact) {
  auto echo = make_process_actor(process_spec<Echo>("echo", "Echo", int64()), actor_context(0));
  auto copy =
      make_process_actor(process_spec<Reassemble>("copy", "Reassemble", int64()), actor_context(1));
  echo->start();
  copy->start();
  for (const Column& c : newer_columns()) {
    for (auto [offset, length] :
         {std::pair<int64_t, int64_t>{0, c.size()}, {3, c.size() - 3}, {13, 50}, {1, 0}}) {
      const Column piece = c.slice(offset, length);
      const Batch batch(Schema({{"c", piece.type()}}), {piece});
      SCOPED_TRACE(c.type().to_string() + " slice " + std::to_string(offset));
      expect_same_column(echo->call(batch), piece);
      expect_same_column(copy->call(batch), piece);
    }
  }
  echo->stop();
  copy->stop();
}

/// struct<a: int64, b: utf8> rows: null structs, null fields, and their expected SwapFields result.
std::pair<Column, Column> structs_and_swapped(int64_t n) {
  ColumnBuilder in(struct_({{"a", int64()}, {"b", utf8()}}));
  ColumnBuilder out(struct_({{"b", utf8()}, {"a", int64()}}));
  for (int64_t i = 0; i < n; ++i) {
    if (i % 9 == 4) {
      in.append_value(Value{});
      out.append_value(Value{});
      continue;
    }
    const Value a = i % 5 == 2 ? Value{} : Value{i * 10};
    const Value b = i % 7 == 1 ? Value{} : Value{"row " + std::to_string(i)};
    Struct s, swapped;
    s.fields = {{"a", a}, {"b", b}};
    swapped.fields = {{"b", b}, {"a", i % 5 == 2 ? Value{} : Value{i * 10 + 1}}};
    in.append_value(Value{s});
    out.append_value(Value{swapped});
  }
  return {in.finish(), out.finish()};
}

TEST(ProcessData, AStructArgumentAndAStructResultCross) {
  auto swap = make_process_actor(
      process_spec<SwapFields>("swap", "SwapFields", struct_({{"b", utf8()}, {"a", int64()}})),
      actor_context(0));
  auto copy =
      make_process_actor(process_spec<Reassemble>("copy", "Reassemble", int64()), actor_context(1));
  swap->start();
  copy->start();
  const auto [structs, swapped] = structs_and_swapped(301);
  Column maps;
  {
    ColumnBuilder b(map(utf8(), struct_({{"x", int64()}})));
    for (int64_t i = 0; i < structs.size(); ++i) {
      List entries;
      entries.element = map(utf8(), struct_({{"x", int64()}})).element();
      for (int64_t k = 0; k < i % 4; ++k) {
        Struct x, entry;
        x.fields = {{"x", k == 1 ? Value{} : Value{i + k}}};
        entry.fields = {{"key", Value{"k" + std::to_string(k)}},
                        {"value", k == 2 ? Value{} : Value{x}}};
        entries.items.emplace_back(entry);
      }
      b.append_value(i % 11 == 3 ? Value{} : Value{entries});
    }
    maps = b.finish();
  }
  for (auto [offset, length] : {std::pair<int64_t, int64_t>{0, 301}, {3, 250}, {77, 13}, {1, 0}}) {
    SCOPED_TRACE("slice " + std::to_string(offset));
    const Column piece = structs.slice(offset, length);
    expect_same_column(swap->call(Batch(Schema({{"s", piece.type()}}), {piece})),
                       swapped.slice(offset, length));
    expect_same_column(copy->call(Batch(Schema({{"s", piece.type()}}), {piece})), piece);
    const Column map_piece = maps.slice(offset, length);
    expect_same_column(copy->call(Batch(Schema({{"m", map_piece.type()}}), {map_piece})),
                       map_piece);
  }
  // Large enough that the UDF's builders allocate in the result region: the result is copied
  // in after them, so its fields' descriptors must count from the region's start.
  const auto [big, big_swapped] = structs_and_swapped(20001);
  expect_same_column(swap->call(Batch(Schema({{"s", big.type()}}), {big})), big_swapped);
  swap->stop();
  copy->stop();
}

}  // namespace
}  // namespace ember::test
