// Test runner for the dist layer (the parts that need no mpirun; tests/dist/cluster_app runs
// whole queries on real ranks).
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
