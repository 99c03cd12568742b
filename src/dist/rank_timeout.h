// How long rank 0 lets a rank stay silent before it ends the job (EMBER_RANK_TIMEOUT_S), and
// how often every rank speaks so that a live one is never mistaken for a stopped one.
#pragma once

#include <algorithm>
#include <chrono>
#include <string_view>

namespace ember::dist {

/// The silence limit and the heartbeat interval derived from it: a quarter of the limit, at
/// most 5 s, so that several heartbeats fit in the limit even when one is late.
struct RankTimeout {
  /// The default limit: long enough for a loaded machine, a swapping rank or a long GC-like
  /// pause in a UDF's process, short enough that a stopped machine does not hold a job for long.
  static constexpr double kDefaultSeconds = 60;

  double limit_seconds = kDefaultSeconds;

  std::chrono::nanoseconds limit() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double>(limit_seconds));
  }
  std::chrono::nanoseconds heartbeat_interval() const {
    return std::min(limit() / 4, std::chrono::nanoseconds(std::chrono::seconds(5)));
  }
};

/// EMBER_RANK_TIMEOUT_S's text: a number of seconds > 0, fractions allowed ("60", "2.5").
/// Throws InvalidArgument naming the variable and the value on anything else.
RankTimeout parse_rank_timeout(std::string_view text);

/// The limit from EMBER_RANK_TIMEOUT_S, or the default when it is unset or empty. Throws as
/// parse_rank_timeout.
RankTimeout rank_timeout_from_environment();

}  // namespace ember::dist
