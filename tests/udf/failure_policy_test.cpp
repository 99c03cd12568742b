// FailurePolicy on its own: which failures are retried and after what wait, the error a batch
// gives up with, how a failed piece splits down to single rows, how piece sizes shrink and grow
// back, and the max_failed_rows check.
#include "udf/failure_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cancelled.h"
#include "ember/error.h"
#include "udf/actor.h"
#include "udf/udf_spec.h"

namespace ember {
namespace {

using std::chrono::milliseconds;
using Duration = FailurePolicy::Duration;

/// A policy as Udf's builder would set it, for a UDF named "score".
FailurePolicy policy(OnError on_error, int max_retries = 3,
                     milliseconds initial = milliseconds(100),
                     milliseconds max = milliseconds(1000), int64_t batch_size = 4096,
                     int64_t max_failed_rows = std::numeric_limits<int64_t>::max()) {
  UdfSpec spec;
  spec.name = "score";
  spec.on_error = on_error;
  spec.max_retries = max_retries;
  spec.retry_initial = initial;
  spec.retry_max = max;
  spec.batch_size = batch_size;
  spec.max_failed_rows = max_failed_rows;
  return FailurePolicy(spec);
}

template <typename E>
std::exception_ptr error_of(E e) {
  return std::make_exception_ptr(std::move(e));
}

/// The message of the exception `error` holds.
std::string what(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  }
}

TEST(PolicyBackoff, DoublesFromInitialUpToTheCap) {
  const FailurePolicy p = policy(OnError::Raise);
  EXPECT_EQ(p.full_backoff(0), milliseconds(100));
  EXPECT_EQ(p.full_backoff(1), milliseconds(200));
  EXPECT_EQ(p.full_backoff(2), milliseconds(400));
  EXPECT_EQ(p.full_backoff(3), milliseconds(800));
  EXPECT_EQ(p.full_backoff(4), milliseconds(1000));  // 1600, capped at retry_max
  EXPECT_EQ(p.full_backoff(60), milliseconds(1000));
  EXPECT_EQ(p.full_backoff(1000), milliseconds(1000));  // no overflow however many retries
}

TEST(PolicyBackoff, EqualJitterWaitsBetweenHalfAndAllOfIt) {
  const FailurePolicy p = policy(OnError::Raise);
  for (int retry = 0; retry < 6; ++retry) {
    const Duration full = p.full_backoff(retry);
    EXPECT_EQ(p.backoff(retry, std::nullopt, 1.0), full);
    EXPECT_EQ(p.backoff(retry, std::nullopt, 0.5), full / 2);
    std::set<Duration::rep> seen;
    for (int i = 0; i < 200; ++i) {
      const Duration wait = p.backoff(retry, std::nullopt);
      EXPECT_GE(wait, full / 2) << "retry " << retry;
      EXPECT_LE(wait, full) << "retry " << retry;
      seen.insert(wait.count());
    }
    EXPECT_GT(seen.size(), 1U) << "the jitter varies from call to call";
  }
}

TEST(PolicyBackoff, ARetryAfterOverridesTheBackoff) {
  const FailurePolicy p = policy(OnError::Raise);
  const Duration asked = milliseconds(2500);  // more than retry_max: it still wins
  EXPECT_EQ(p.backoff(0, asked), asked);
  EXPECT_EQ(p.backoff(5, asked), asked);
  EXPECT_EQ(p.backoff(2, asked, 0.5), asked);  // no jitter either
  EXPECT_EQ(p.backoff(2, Duration::zero()), Duration::zero());
}

TEST(PolicyBackoff, ZeroInitialRetriesAtOnce) {
  const FailurePolicy p = policy(OnError::Raise, 3, milliseconds(0), milliseconds(0));
  for (int retry = 0; retry < 4; ++retry)
    EXPECT_EQ(p.backoff(retry, std::nullopt), Duration::zero());
}

TEST(PolicyRetries, ClassifiesFailures) {
  const FailureKind thrown = FailureKind::of(error_of(UdfError("boom")));
  EXPECT_TRUE(thrown.retryable);
  EXPECT_FALSE(thrown.cancelled || thrown.timeout || thrown.retry_after);
  EXPECT_EQ(thrown.message, "boom");

  const FailureKind timed_out = FailureKind::of(error_of(CallTimedOut("too slow")));
  EXPECT_TRUE(timed_out.retryable && timed_out.timeout);

  const FailureKind asked = FailureKind::of(error_of(RetryAfter(milliseconds(7), "busy")));
  EXPECT_TRUE(asked.retryable);
  ASSERT_TRUE(asked.retry_after);
  EXPECT_EQ(*asked.retry_after, milliseconds(7));

  // Retried already where it ran (another rank's pool): run no more here, still isolated.
  const FailureKind settled = FailureKind::of(error_of(SettledCallError("gave up there")));
  EXPECT_FALSE(settled.retryable);
  EXPECT_FALSE(settled.cancelled);
  EXPECT_EQ(policy(OnError::Null).isolated_message(error_of(SettledCallError("there"))), "there");

  const FailureKind cancelled = FailureKind::of(error_of(Cancelled()));
  EXPECT_TRUE(cancelled.cancelled);
  EXPECT_FALSE(cancelled.retryable);

  // Engine errors and anything else are not the UDF's failures: never retried.
  EXPECT_FALSE(FailureKind::of(error_of(Error("engine"))).retryable);
  EXPECT_FALSE(FailureKind::of(error_of(std::runtime_error("other"))).retryable);
}

TEST(PolicyRetries, RetriesUpToMaxRetries) {
  const FailurePolicy p = policy(OnError::Raise, 3);
  const FailureKind thrown = FailureKind::of(error_of(UdfError("boom")));
  for (int done = 0; done < 3; ++done) EXPECT_TRUE(p.should_retry(thrown, done)) << done;
  EXPECT_FALSE(p.should_retry(thrown, 3));
  EXPECT_FALSE(p.should_retry(FailureKind::of(error_of(Cancelled())), 0));
  EXPECT_FALSE(policy(OnError::Raise, 0).should_retry(thrown, 0));
}

TEST(PolicyRetries, TheFinalErrorSaysHowOftenItWasTried) {
  const FailurePolicy p = policy(OnError::Raise, 3);
  const std::exception_ptr boom = error_of(UdfError("boom"));
  const FailureKind kind = FailureKind::of(boom);
  EXPECT_EQ(p.final_error(boom, kind, 0), boom);  // never retried: the error itself
  EXPECT_EQ(what(p.final_error(boom, kind, 1)), "boom; gave up after 1 retry (max_retries = 3)");
  EXPECT_EQ(what(p.final_error(boom, kind, 3)), "boom; gave up after 3 retries (max_retries = 3)");

  // A RetryAfter is delivered as the UdfError it stands for, retried or not.
  const std::exception_ptr busy = error_of(RetryAfter(milliseconds(5), "busy"));
  const std::exception_ptr given_up = p.final_error(busy, FailureKind::of(busy), 0);
  EXPECT_THROW(std::rethrow_exception(given_up), UdfError);
  EXPECT_EQ(what(given_up), "busy");

  const std::exception_ptr stop = error_of(Cancelled());
  EXPECT_EQ(p.final_error(stop, FailureKind::of(stop), 2), stop);
}

TEST(PolicyIsolation, NullAndSkipIsolateRaiseDoesNot) {
  EXPECT_FALSE(policy(OnError::Raise).isolates());
  EXPECT_TRUE(policy(OnError::Null).isolates());
  EXPECT_TRUE(policy(OnError::Skip).isolates());
  EXPECT_EQ(policy(OnError::Null).failed_row(), FailedRow::Null);
  EXPECT_EQ(policy(OnError::Skip).failed_row(), FailedRow::Dropped);
  EXPECT_STREQ(policy(OnError::Raise).on_error_name(), "raise");
  EXPECT_STREQ(policy(OnError::Null).on_error_name(), "null");
  EXPECT_STREQ(policy(OnError::Skip).on_error_name(), "skip");
}

TEST(PolicyIsolation, IsolatesTheUdfsFailuresOnly) {
  const FailurePolicy p = policy(OnError::Null);
  EXPECT_EQ(p.isolated_message(error_of(UdfError("boom"))), "boom");
  EXPECT_EQ(p.isolated_message(error_of(CallTimedOut("slow"))), "slow");
  EXPECT_EQ(p.isolated_message(error_of(Cancelled())), std::nullopt);
  EXPECT_EQ(p.isolated_message(error_of(Error("engine"))), std::nullopt);
  EXPECT_EQ(policy(OnError::Raise).isolated_message(error_of(UdfError("boom"))), std::nullopt);
}

TEST(PolicyIsolation, SplitsInEightAsEvenAsTheRowsAllow) {
  EXPECT_EQ(FailurePolicy::split_parts(0), 0);
  EXPECT_EQ(FailurePolicy::split_parts(1), 0);  // a single row is not split: it failed
  EXPECT_EQ(FailurePolicy::split_parts(2), 2);
  EXPECT_EQ(FailurePolicy::split_parts(8), 8);
  EXPECT_EQ(FailurePolicy::split_parts(9), 8);
  EXPECT_EQ(FailurePolicy::split_parts(4096), 8);
  for (const int64_t rows : {2, 7, 8, 9, 100, 4096}) {
    const int64_t parts = FailurePolicy::split_parts(rows);
    int64_t next = 0;
    for (int64_t k = 0; k < parts; ++k) {
      const SplitPiece piece = FailurePolicy::split_piece(rows, parts, k);
      EXPECT_EQ(piece.offset, next) << rows << " rows, part " << k;
      EXPECT_GE(piece.rows, rows / parts);
      EXPECT_LE(piece.rows, rows / parts + 1);
      next += piece.rows;
    }
    EXPECT_EQ(next, rows);
  }
}

TEST(PolicyIsolation, RecursiveSplitsReachEverySingleRow) {
  // As the operator isolates: split every piece of more than one row until none is left.
  std::vector<int64_t> singles;
  int deepest = 0;
  std::function<void(int64_t, int64_t, int)> isolate = [&](int64_t offset, int64_t rows,
                                                           int depth) {
    const int64_t parts = FailurePolicy::split_parts(rows);
    if (parts == 0) {
      ASSERT_EQ(rows, 1);
      singles.push_back(offset);
      deepest = std::max(deepest, depth);
      return;
    }
    for (int64_t k = 0; k < parts; ++k) {
      const SplitPiece piece = FailurePolicy::split_piece(rows, parts, k);
      isolate(offset + piece.offset, piece.rows, depth + 1);
    }
  };
  isolate(0, 1000, 0);
  ASSERT_EQ(singles.size(), 1000U);
  for (int64_t i = 0; i < 1000; ++i) EXPECT_EQ(singles[static_cast<size_t>(i)], i);
  EXPECT_EQ(deepest, 4);  // 1000 -> 125 -> 16 (or 15) -> 2 -> 1
}

TEST(PolicyIsolation, PiecesShrinkAfterAFailureAndGrowBack) {
  EXPECT_EQ(policy(OnError::Skip, 0, {}, {}, 4096).failure_piece_rows(), 256);  // 4096 / 16
  EXPECT_EQ(policy(OnError::Skip, 0, {}, {}, 512).failure_piece_rows(), 64);    // not below 64
  EXPECT_EQ(policy(OnError::Skip, 0, {}, {}, 30).failure_piece_rows(), 30);     // nor batch_size

  const FailurePolicy p = policy(OnError::Skip, 0, {}, {}, 4096);
  PieceSizing sizing = p.piece_sizing();
  EXPECT_EQ(sizing.rows, 4096);
  p.after_call(sizing, false, true);
  EXPECT_EQ(sizing.rows, 4096);  // successes change nothing at full size
  p.after_call(sizing, true, false);
  EXPECT_EQ(sizing.rows, 256);
  for (int i = 0; i < 15; ++i) p.after_call(sizing, false, true);
  for (int i = 0; i < 20; ++i) p.after_call(sizing, false, false);  // isolation's don't count
  EXPECT_EQ(sizing.rows, 256);
  p.after_call(sizing, true, true);  // a failure starts the count again
  for (int i = 0; i < 15; ++i) p.after_call(sizing, false, true);
  EXPECT_EQ(sizing.rows, 256);
  p.after_call(sizing, false, true);  // the 16th in a row
  EXPECT_EQ(sizing.rows, 512);
  for (int i = 0; i < 16 * 10; ++i) p.after_call(sizing, false, true);
  EXPECT_EQ(sizing.rows, 4096);  // back to batch_size, not beyond
}

TEST(PolicyFailedRows, FailsPastMaxFailedRowsNamingTheLatest) {
  const FailurePolicy p = policy(OnError::Skip, 0, {}, {}, 100, 5);
  EXPECT_FALSE(p.too_many_failed(5));
  EXPECT_TRUE(p.too_many_failed(6));
  EXPECT_NO_THROW(p.check_failed_rows(5, "row 5"));
  try {
    p.check_failed_rows(6, "udf 'score' failed on row 17: boom");
    FAIL() << "expected UdfError";
  } catch (const UdfError& e) {
    EXPECT_STREQ(e.what(),
                 "udf 'score': 6 rows failed, more than max_failed_rows = 5; the latest: "
                 "udf 'score' failed on row 17: boom");
  }
  EXPECT_FALSE(policy(OnError::Skip).too_many_failed(std::numeric_limits<int64_t>::max()));
}

TEST(PolicyDefaults, AreThoseOfAUdf) {
  const FailurePolicy p;
  EXPECT_EQ(p.on_error(), OnError::Raise);
  EXPECT_EQ(p.max_retries(), 0);
  EXPECT_EQ(p.max_failed_rows(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(p.full_backoff(0), milliseconds(100));
  EXPECT_EQ(p.full_backoff(10), milliseconds(10000));
  EXPECT_EQ(p.piece_sizing().rows, 4096);
}

}  // namespace
}  // namespace ember
