// What a stateful UDF does when a call fails: whether and when the call is run again, which
// failures count, and under OnError::Null or Skip how failing rows are isolated, what they
// become and how many may fail. The pool, the operator and the rejected-rows collector ask it.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>

#include "ember/udf.h"
#include "udf/udf_spec.h"

namespace ember {

/// What a failed call's error is, read with one rethrow: each costs microseconds, and under
/// isolation one failing row fails many calls.
struct FailureKind {
  using Duration = std::chrono::steady_clock::duration;
  bool cancelled = false;  ///< Cancelled: the pool or its query is stopping
  bool timeout = false;    ///< CallTimedOut
  /// The pool runs it again: a throw from the UDF, a bad result, a dead or killed worker, a
  /// timeout or a RetryAfter; not a cancellation nor an engine error.
  bool retryable = false;
  std::optional<Duration> retry_after;  ///< what a RetryAfter asked for
  std::string message;                  ///< of a retryable error

  /// Reads `error` (not null).
  static FailureKind of(const std::exception_ptr& error);
};

/// What becomes of a row whose own call failed once isolated (OnError::Null or Skip).
enum class FailedRow { Null, Dropped };

/// A part of a failed piece, as rows of that piece: [offset, offset + rows).
struct SplitPiece {
  int64_t offset = 0;
  int64_t rows = 0;
};

/// The rows per piece one partition cuts its chunks into: batch_size until a call fails, then
/// fewer for a while. Plain data that its partition owns and guards; FailurePolicy::after_call
/// changes it.
struct PieceSizing {
  int64_t rows = 0;
  int64_t successes = 0;  ///< first pieces in a row that succeeded
};

/// One UDF's failure policy: a plain value built from its spec, answering for the settings
/// Udf::max_retries, retry_backoff, on_error and max_failed_rows. Const and thread-safe.
class FailurePolicy {
 public:
  using Duration = FailureKind::Duration;

  /// Pieces a failed piece is split into for isolation. More than two keeps isolation shallow:
  /// a failing row among p is found in log_8(p) rounds of calls instead of log_2(p), and its
  /// chunk, which holds up its partition's output meanwhile, comes back that much sooner; the
  /// good rows are re-run about 8/7 times instead of twice.
  static constexpr int64_t kSplitInto = 8;
  /// After a failure, pieces of batch_size / kShrink rows...
  static constexpr int64_t kShrink = 16;
  /// ...but never fewer than this: below it a call's fixed cost (a round trip to a worker
  /// process, the pool's hand-off) outweighs the re-runs a smaller piece would save.
  static constexpr int64_t kMinPieceRows = 64;
  /// Pieces in a row that must succeed before the piece size doubles.
  static constexpr int64_t kGrowAfter = 16;

  /// The policy of a Udf left at its defaults: no retries, OnError::Raise.
  FailurePolicy();
  explicit FailurePolicy(const UdfSpec& spec);

  const std::string& udf_name() const { return udf_; }
  OnError on_error() const { return on_error_; }
  int max_retries() const { return max_retries_; }
  int64_t max_failed_rows() const { return max_failed_rows_; }

  // ---- retries

  /// Whether a call that failed as `kind` after `retries` re-runs is run again.
  bool should_retry(const FailureKind& kind, int retries) const {
    return retries < max_retries_ && kind.retryable;
  }
  /// The wait before retry number `retry` (0-based): what a RetryAfter asked for (`retry_after`),
  /// else full_backoff(retry) with "equal jitter" (between half and all of it, at random) so
  /// that batches failing together do not come back together. Any thread.
  Duration backoff(int retry, const std::optional<Duration>& retry_after) const;
  /// The same with the jitter given, a fraction in [0.5, 1].
  Duration backoff(int retry, const std::optional<Duration>& retry_after, double jitter) const;
  /// retry_initial x 2^retry, capped at retry_max: the most backoff() waits without a RetryAfter.
  Duration full_backoff(int retry) const;
  /// The error a batch is delivered with once its retries are spent (`retries` re-runs): a
  /// RetryAfter becomes the UdfError it stands for, and a retried failure says how often it
  /// was tried. Anything else is `error` itself.
  std::exception_ptr final_error(const std::exception_ptr& error, const FailureKind& kind,
                                 int retries) const;

  // ---- isolation (OnError::Null and Skip)

  /// Whether the rows of a batch that failed after its retries are isolated rather than failing
  /// the query: OnError::Null or Skip.
  bool isolates() const { return on_error_ != OnError::Raise; }
  /// The message a delivered failure is isolated with; nullopt when it fails the query instead
  /// (under Raise, or for a cancellation or an engine error, anything but a UdfError).
  std::optional<std::string> isolated_message(const std::exception_ptr& error) const;
  /// Into how many parts a failed piece of `rows` rows splits: kSplitInto, fewer for fewer rows,
  /// and 0 for a single row, which is not split but failed.
  static int64_t split_parts(int64_t rows);
  /// Part `k` of the `parts` a failed piece of `rows` rows splits into: as even as the rows allow.
  static SplitPiece split_piece(int64_t rows, int64_t parts, int64_t k);
  /// What a row whose own call failed becomes: a null (Null) or nothing (Skip).
  FailedRow failed_row() const {
    return on_error_ == OnError::Null ? FailedRow::Null : FailedRow::Dropped;
  }

  // ---- piece sizes after failures

  /// Before any failure: whole chunks of batch_size rows.
  PieceSizing piece_sizing() const { return PieceSizing{batch_size_, 0}; }
  /// The piece size after a failure: batch_size / kShrink, never below kMinPieceRows (nor above
  /// batch_size).
  int64_t failure_piece_rows() const;
  /// Updates `sizing` after a piece's call: a failure shrinks it to failure_piece_rows(), each
  /// run of kGrowAfter successes of `first` pieces (cut by dispatch, not by isolation) doubles
  /// it again, back up to batch_size.
  void after_call(PieceSizing& sizing, bool failed, bool first) const;

  // ---- max_failed_rows

  /// Whether `total` failed rows in a query are more than max_failed_rows allows.
  bool too_many_failed(int64_t total) const { return total > max_failed_rows_; }
  /// The UdfError a query fails with once `total` rows failed, too many; `latest` is the
  /// message of the last of them.
  std::string too_many_failed_message(int64_t total, const std::string& latest) const;
  /// Throws that UdfError when too_many_failed(total).
  void check_failed_rows(int64_t total, const std::string& latest) const;

  /// The policy's name in messages and plans: "raise", "null" or "skip".
  const char* on_error_name() const { return on_error_name(on_error_); }
  static const char* on_error_name(OnError policy);

 private:
  double full_backoff_ms(int retry) const;  ///< full_backoff, unrounded

  std::string udf_;
  int max_retries_ = 0;
  std::chrono::milliseconds retry_initial_{0};
  std::chrono::milliseconds retry_max_{0};
  OnError on_error_ = OnError::Raise;
  int64_t max_failed_rows_ = 0;
  int64_t batch_size_ = 0;
};

}  // namespace ember
