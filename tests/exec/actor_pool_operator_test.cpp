// The pool stage: re-batching across morsels, re-sequencing within the window, backpressure,
// and a limit that stops feeding the pool early.
#include "exec/operators/actor_pool_operator.h"

#include <gtest/gtest.h>

#include <condition_variable>

#include "exec/sinks/limit_sink.h"
#include "exec_test_kit.h"

namespace ember {
namespace {

using namespace test;

Schema xy() { return Schema({{"x", int64()}, {"y", int64()}}); }

/// One partition's PoolStage over pool 0 of `q`, with a wake-up the test can wait for.
struct Stage {
  explicit Stage(TestQuery& q) : op(0, {0}, {"x"}, xy()) {
    state = op.local_state(q.query, 0, [this] {
      std::lock_guard lock(mu);
      ++wakes;
      cv.notify_all();
    });
  }
  /// Every output batch in order, waiting for completions (at most 30 s in all).
  std::vector<Batch> drain() {
    std::vector<Batch> out;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!state->drained()) {
      if (std::optional<Batch> b = state->next_ready()) {
        out.push_back(std::move(*b));
        continue;
      }
      std::unique_lock lock(mu);
      if (!cv.wait_until(lock, deadline, [&] { return wakes > 0; })) break;
      wakes = 0;
    }
    return out;
  }
  ActorPoolOperator op;
  std::unique_ptr<AsyncOperatorState> state;
  std::mutex mu;
  std::condition_variable cv;
  int wakes = 0;
};

TEST(PoolStage, RebatchesAcrossMorselsIntoBatchSizeChunks) {
  seen.reset();
  TestQuery q({times_ten(1, 4)});
  Stage s(q);
  s.state->feed(numbers(0, 3));
  s.state->feed(numbers(3, 3));
  s.state->feed(numbers(6, 5));
  s.state->flush();
  std::vector<Batch> out = s.drain();
  ASSERT_TRUE(s.state->drained());
  {
    std::lock_guard lock(seen.mu);
    EXPECT_EQ(seen.call_rows, (std::vector<int64_t>{4, 4, 3})) << "the last chunk is short";
  }
  Table t(xy(), out);
  EXPECT_EQ(values(t, 0), iota(11));
  std::vector<int64_t> tens;
  for (int64_t v : iota(11)) tens.push_back(v * 10);
  EXPECT_EQ(values(t, 1), tens);
  EXPECT_EQ(s.state->in_flight(), 0);
}

TEST(PoolStage, ResequencesResultsThatCompleteOutOfOrder) {
  seen.reset();
  // Four actors; a chunk's call takes (40 - first row) ms, so later chunks finish first.
  TestQuery q({times_ten(4, 2, InitArgs{{"slow_first", Value{int64_t{40}}}})});
  Stage s(q);
  s.state->feed(numbers(0, 16));  // 8 chunks, within the window of 2 x 4 + 2
  s.state->flush();
  Table t(xy(), s.drain());
  EXPECT_EQ(values(t, 0), iota(16));
}

TEST(PoolStage, OneFeedOfManyChunksKeepsEveryChunkInOrder) {
  seen.reset();
  // Chunks of one row on four actors, later ones finishing first: a single feed dispatches
  // 100 chunks, far more than the window, and all of them are in flight at once.
  TestQuery q({times_ten(4, 1, InitArgs{{"slow_first", Value{int64_t{30}}}})});
  Stage s(q);
  s.state->feed(numbers(0, 100));
  s.state->feed(numbers(100, 3));  // straight after: the stage holds 103 chunks
  s.state->flush();
  Table t(xy(), s.drain());
  EXPECT_EQ(values(t, 0), iota(103));
  std::vector<int64_t> tens;
  for (int64_t v : iota(103)) tens.push_back(v * 10);
  EXPECT_EQ(values(t, 1), tens);
  EXPECT_EQ(s.state->in_flight(), 0);
}

TEST(PoolStage, AlignedFeedsAreCutWithoutCarryingRowsOver) {
  seen.reset();
  TestQuery q({times_ten(2, 4)});
  Stage s(q);
  s.state->feed(numbers(0, 8));   // two whole chunks
  s.state->feed(numbers(8, 6));   // one whole chunk and two rows held back
  s.state->feed(numbers(14, 2));  // which these complete
  s.state->flush();
  Table t(xy(), s.drain());
  EXPECT_EQ(values(t, 0), iota(16));
  std::lock_guard lock(seen.mu);
  EXPECT_EQ(seen.call_rows, (std::vector<int64_t>{4, 4, 4, 4}));
}

TEST(PoolStage, WindowBoundsChunksInFlight) {
  seen.reset();
  TestQuery q({times_ten(1, 1, InitArgs{{"slow_first", Value{int64_t{20}}}})});
  Stage s(q);
  // One actor: a window of 2 x 1 + 2 chunks.
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(s.state->can_accept());
    s.state->feed(numbers(i, 1));
  }
  EXPECT_FALSE(s.state->can_accept()) << "the driver must stop reading";
  s.state->flush();
  Table t(xy(), s.drain());
  EXPECT_EQ(values(t, 0), iota(4));
  EXPECT_TRUE(s.state->can_accept());
}

TEST(PoolStage, LimitStopsFeedingThePoolEarly) {
  seen.reset();
  TestQuery q({times_ten(2, 100)});
  Pipeline p;
  p.add(std::make_shared<ActorPoolOperator>(0, std::vector<int>{0}, std::vector<std::string>{"x"},
                                            xy()));
  p.schema = xy();
  LimitSink limit(150, xy());
  // One partition of a million rows: far more than the limit needs.
  std::vector<Batch> rows;
  for (int64_t i = 0; i < 1000; ++i) rows.push_back(numbers(i * 1000, 1000));
  TableSource source(x_schema(), {rows}, "test");
  auto state = limit.global_state(1);
  run_pipeline(q.query, p, source, limit, *state, 2);
  ASSERT_EQ(q.query.error(), nullptr);
  std::shared_ptr<const Source> out = limit.finalize(*state);
  auto reader = out->open(0, 1 << 20);
  int64_t n = 0;
  while (auto b = reader->next()) n += b->num_rows();
  EXPECT_EQ(n, 150);
  EXPECT_LT(seen.rows.load(), 100000) << "the pool saw far fewer rows than the input holds";
}

}  // namespace
}  // namespace ember
