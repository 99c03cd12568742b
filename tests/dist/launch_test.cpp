// Start-up without mpirun: nothing to do, a cluster of one; and a program that a launcher
// started on several ranks without calling ember::init is refused, not run once per rank.
#include "dist/launch.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "ember/error.h"

namespace ember::dist {
namespace {

TEST(Launch, WithoutALauncherTheClusterIsThisMachine) {
  const ClusterInfo c = cluster_info();
  EXPECT_EQ(c.ranks, 1);
  ASSERT_EQ(c.members.size(), 1u);
  EXPECT_GE(c.members[0].resources.cpus, 1);
  EXPECT_NO_THROW(require_init_under_launcher());
}

TEST(Launch, SeveralRanksWithoutInitAreRefused) {
  ::setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
  ::setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  try {
    require_init_under_launcher();
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "rank 1 of 3 under mpirun, but ember::init(argc, argv) was never called"),
              std::string::npos)
        << e.what();
  }
  // One rank (mpirun -np 1) is a plain run.
  ::setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
  ::setenv("OMPI_COMM_WORLD_RANK", "0", 1);
  EXPECT_NO_THROW(require_init_under_launcher());
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  ::unsetenv("OMPI_COMM_WORLD_RANK");
}

}  // namespace
}  // namespace ember::dist
