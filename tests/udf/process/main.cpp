// Test entry point. ember::init comes first: when this binary is re-executed as a worker
// process it serves there and never reaches GoogleTest.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ember/dataframe.h"

int main(int argc, char** argv) {
  // A helper test re-runs this binary without ember::init to check the error a driver gets.
  if (std::getenv("EMBER_TEST_SKIP_INIT") == nullptr) ember::init(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
