// Retries and their backoff, the classes of failure, row isolation and max_failed_rows.
#include "udf/failure_policy.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/cancelled.h"
#include "ember/error.h"
#include "udf/actor.h"

namespace ember {

FailureKind FailureKind::of(const std::exception_ptr& error) {
  FailureKind k;
  try {
    std::rethrow_exception(error);
  } catch (const Cancelled&) {
    k.cancelled = true;
  } catch (const RetryAfter& r) {
    k.retryable = true;
    k.retry_after = r.delay();
    k.message = r.what();
  } catch (const SettledCallError& e) {
    k.message = e.what();  // retried where it ran
  } catch (const CallTimedOut& e) {
    k.timeout = k.retryable = true;
    k.message = e.what();
  } catch (const UdfError& e) {
    k.retryable = true;
    k.message = e.what();
  } catch (...) {
  }
  return k;
}

FailurePolicy::FailurePolicy() : FailurePolicy(UdfSpec{}) {}

FailurePolicy::FailurePolicy(const UdfSpec& spec)
    : udf_(spec.name),
      max_retries_(spec.max_retries),
      retry_initial_(spec.retry_initial),
      retry_max_(spec.retry_max),
      on_error_(spec.on_error),
      max_failed_rows_(spec.max_failed_rows),
      batch_size_(spec.batch_size) {}

// ---- retries

double FailurePolicy::full_backoff_ms(int retry) const {
  const double initial = static_cast<double>(retry_initial_.count());
  const double ceiling = static_cast<double>(retry_max_.count());
  return std::min(ceiling, initial * std::pow(2.0, std::min(retry, 62)));
}

FailurePolicy::Duration FailurePolicy::full_backoff(int retry) const {
  return std::chrono::duration_cast<Duration>(
      std::chrono::duration<double, std::milli>(full_backoff_ms(retry)));
}

FailurePolicy::Duration FailurePolicy::backoff(int retry,
                                               const std::optional<Duration>& retry_after,
                                               double jitter) const {
  if (retry_after) return *retry_after;
  return std::chrono::duration_cast<Duration>(
      std::chrono::duration<double, std::milli>(full_backoff_ms(retry) * jitter));
}

FailurePolicy::Duration FailurePolicy::backoff(int retry,
                                               const std::optional<Duration>& retry_after) const {
  if (retry_after) return *retry_after;
  thread_local std::minstd_rand random{std::random_device{}()};
  return backoff(retry, retry_after, std::uniform_real_distribution<double>(0.5, 1.0)(random));
}

std::exception_ptr FailurePolicy::final_error(const std::exception_ptr& error,
                                              const FailureKind& kind, int retries) const {
  if (!kind.retryable || (retries == 0 && !kind.retry_after)) return error;
  std::string message = kind.message;
  if (retries > 0)
    message += "; gave up after " + std::to_string(retries) +
               (retries == 1 ? " retry" : " retries") +
               " (max_retries = " + std::to_string(max_retries_) + ")";
  return std::make_exception_ptr(UdfError(message));
}

// ---- isolation

std::optional<std::string> FailurePolicy::isolated_message(const std::exception_ptr& error) const {
  if (!isolates()) return std::nullopt;
  try {
    std::rethrow_exception(error);
  } catch (const UdfError& e) {
    return std::string(e.what());  // the UDF's call failed (threw, bad column, worker died)
  } catch (...) {
    return std::nullopt;  // a cancellation or an engine error: the query is over
  }
}

int64_t FailurePolicy::split_parts(int64_t rows) {
  return rows <= 1 ? 0 : std::min(kSplitInto, rows);
}

SplitPiece FailurePolicy::split_piece(int64_t rows, int64_t parts, int64_t k) {
  const int64_t begin = rows * k / parts;
  const int64_t end = rows * (k + 1) / parts;
  return SplitPiece{begin, end - begin};
}

// ---- piece sizes

int64_t FailurePolicy::failure_piece_rows() const {
  return std::max(std::min(kMinPieceRows, batch_size_), batch_size_ / kShrink);
}

void FailurePolicy::after_call(PieceSizing& sizing, bool failed, bool first) const {
  if (failed) {
    sizing.rows = std::min(sizing.rows, failure_piece_rows());
    sizing.successes = 0;
  } else if (first && sizing.rows < batch_size_ && ++sizing.successes >= kGrowAfter) {
    sizing.rows = std::min(batch_size_, 2 * sizing.rows);
    sizing.successes = 0;
  }
}

// ---- max_failed_rows

std::string FailurePolicy::too_many_failed_message(int64_t total, const std::string& latest) const {
  return "udf '" + udf_ + "': " + std::to_string(total) +
         " rows failed, more than max_failed_rows = " + std::to_string(max_failed_rows_) +
         "; the latest: " + latest;
}

void FailurePolicy::check_failed_rows(int64_t total, const std::string& latest) const {
  if (too_many_failed(total)) throw UdfError(too_many_failed_message(total, latest));
}

const char* FailurePolicy::on_error_name(OnError policy) {
  switch (policy) {
    case OnError::Null:
      return "null";
    case OnError::Skip:
      return "skip";
    case OnError::Raise:
      break;
  }
  return "raise";
}

}  // namespace ember
