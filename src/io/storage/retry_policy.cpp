// Backoff with full jitter.
#include "io/storage/retry_policy.h"

#include <algorithm>
#include <random>

namespace ember {

std::chrono::milliseconds RetryPolicy::delay(int retry) const {
  const int64_t cap = max_delay.count();
  const int64_t base = std::min<int64_t>(cap, initial_delay.count() << std::min(retry, 20));
  thread_local std::mt19937_64 random{std::random_device{}()};
  return std::chrono::milliseconds(std::uniform_int_distribution<int64_t>(0, base)(random));
}

bool RetryPolicy::retryable_status(long status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 ||
         status == 504;
}

}  // namespace ember
