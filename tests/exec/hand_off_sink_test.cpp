// The hand-off of a pipeline's batches to a reader on another thread: the pipeline is blocked
// (Sink::ready false) while the reader is behind, woken when it takes a batch, never blocked
// once the reader is gone, and its failure reaches the reader after the batches it made.
#include "exec/sinks/hand_off_sink.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "exec_test_kit.h"

namespace ember {
namespace {

using test::numbers;

TEST(HandOff, APipelineAheadOfItsReaderIsBlockedUntilItTakesABatch) {
  auto hand_off = std::make_shared<HandOff>(2);
  const HandOffSink sink(hand_off);
  auto global = sink.global_state(1);
  auto local = sink.local_state(*global, 0);
  int woken = 0;
  const auto wake = [&] { ++woken; };
  ASSERT_TRUE(sink.ready(*global, *local, wake));
  sink.sink(*global, *local, numbers(0, 10));
  ASSERT_TRUE(sink.ready(*global, *local, wake));
  sink.sink(*global, *local, numbers(10, 10));
  EXPECT_FALSE(sink.ready(*global, *local, wake));  // two wait: full
  EXPECT_EQ(woken, 0);
  const std::optional<Batch> first = hand_off->take();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->column(0).get(0), Value{int64_t{0}});
  EXPECT_EQ(woken, 1);  // room again: the blocked partition is woken once
  EXPECT_TRUE(sink.ready(*global, *local, wake));
  sink.sink(*global, *local, numbers(20, 10));
  hand_off->finish(nullptr);
  EXPECT_EQ(hand_off->take()->column(0).get(0), Value{int64_t{10}});
  EXPECT_EQ(hand_off->take()->column(0).get(0), Value{int64_t{20}});
  EXPECT_FALSE(hand_off->take().has_value());
  EXPECT_EQ(woken, 1);
}

TEST(HandOff, AReaderWaitsForTheNextBatchFromAnotherThread) {
  auto hand_off = std::make_shared<HandOff>(1);
  std::thread pipeline([&] {
    for (int i = 0; i < 50; ++i) {
      std::atomic<bool> room{false};
      while (!hand_off->reserve([&] { room = true; }) && !room) std::this_thread::yield();
      hand_off->put(numbers(i, 1));
    }
    hand_off->finish(nullptr);
  });
  int64_t expected = 0;
  while (std::optional<Batch> b = hand_off->take())
    EXPECT_EQ(b->column(0).get(0), Value{expected++});
  pipeline.join();
  EXPECT_EQ(expected, 50);
}

TEST(HandOff, AClosedReaderWakesTheBlockedPipelineAndDropsWhatFollows) {
  auto hand_off = std::make_shared<HandOff>(1);
  hand_off->put(numbers(0, 5));
  int woken = 0;
  EXPECT_FALSE(hand_off->reserve([&] { ++woken; }));
  hand_off->close();
  EXPECT_EQ(woken, 1);
  EXPECT_TRUE(hand_off->reserve([&] { ++woken; }));  // never blocked again
  hand_off->put(numbers(5, 5));
  hand_off->finish(nullptr);
  EXPECT_FALSE(hand_off->take().has_value());
}

TEST(HandOff, APipelinesFailureReachesTheReaderAfterItsBatches) {
  auto hand_off = std::make_shared<HandOff>(4);
  hand_off->put(numbers(0, 3));
  hand_off->finish(std::make_exception_ptr(IoError("spill file lost")));
  ASSERT_TRUE(hand_off->take().has_value());
  EXPECT_THROW(hand_off->take(), IoError);
}

}  // namespace
}  // namespace ember
