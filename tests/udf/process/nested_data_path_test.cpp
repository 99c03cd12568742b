// The types beyond the first four through a worker process: int32, float32, binary, timestamps,
// lists with nulls at both levels, nested lists and embeddings, sliced at odd offsets.
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

}  // namespace
}  // namespace ember::test
