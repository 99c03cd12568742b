// When and how long to wait before trying a request to object storage again.
#pragma once

#include <chrono>

namespace ember {

/// Exponential backoff with full jitter (the AWS SDKs' scheme): attempt n waits a random time
/// in [0, min(max_delay, initial_delay * 2^n)), so that many clients throttled together do not
/// come back together. Immutable; safe to share between threads.
struct RetryPolicy {
  int max_attempts = 8;  ///< the first try included
  std::chrono::milliseconds initial_delay{50};
  std::chrono::milliseconds max_delay{5000};

  /// The wait before retry number `retry` (0 for the first retry).
  std::chrono::milliseconds delay(int retry) const;
  /// True for the answers a server gives when it is busy or briefly broken: 429, 500, 502,
  /// 503 (S3's SlowDown), 504, and 408.
  static bool retryable_status(long status);
};

}  // namespace ember
