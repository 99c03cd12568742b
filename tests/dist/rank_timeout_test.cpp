// EMBER_RANK_TIMEOUT_S: seconds > 0, fractions allowed; anything else is refused with the
// variable and the value named; the heartbeat interval fits several times in the limit.
#include "dist/rank_timeout.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "ember/error.h"

namespace ember::dist {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(RankTimeout, TakesWholeAndFractionalSeconds) {
  EXPECT_EQ(parse_rank_timeout("60").limit_seconds, 60);
  EXPECT_EQ(parse_rank_timeout("2.5").limit_seconds, 2.5);
  EXPECT_EQ(parse_rank_timeout(" 3 ").limit_seconds, 3);
  EXPECT_EQ(parse_rank_timeout("0.25").limit(), milliseconds(250));
}

TEST(RankTimeout, RefusesWhatIsNotAPositiveNumberOfSeconds) {
  for (const char* bad : {"", "0", "-1", "abc", "5s", "nan", "inf", "1e30", "3,5"}) {
    try {
      parse_rank_timeout(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("EMBER_RANK_TIMEOUT_S='" + std::string(bad) + "'"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(RankTimeout, HeartbeatIsAQuarterOfTheLimitAtMostFiveSeconds) {
  EXPECT_EQ(RankTimeout{}.limit(), seconds(60));
  EXPECT_EQ(RankTimeout{}.heartbeat_interval(), seconds(5));
  EXPECT_EQ(RankTimeout{3}.heartbeat_interval(), milliseconds(750));
  EXPECT_EQ(RankTimeout{600}.heartbeat_interval(), seconds(5));
}

TEST(RankTimeout, ReadFromTheEnvironmentOrTheDefault) {
  ::unsetenv("EMBER_RANK_TIMEOUT_S");
  EXPECT_EQ(rank_timeout_from_environment().limit_seconds, 60);
  ::setenv("EMBER_RANK_TIMEOUT_S", "", 1);
  EXPECT_EQ(rank_timeout_from_environment().limit_seconds, 60);
  ::setenv("EMBER_RANK_TIMEOUT_S", "4.5", 1);
  EXPECT_EQ(rank_timeout_from_environment().limit_seconds, 4.5);
  ::setenv("EMBER_RANK_TIMEOUT_S", "soon", 1);
  EXPECT_THROW(rank_timeout_from_environment(), InvalidArgument);
  ::unsetenv("EMBER_RANK_TIMEOUT_S");
}

}  // namespace
}  // namespace ember::dist
