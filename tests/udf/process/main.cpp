// Test entry point. The worker entry (what ember::init runs) comes first: when this binary is
// re-executed as a worker process it serves there and never reaches GoogleTest.
#include <gtest/gtest.h>

#include <cstdlib>

#include "udf/process/worker_entry.h"

int main(int argc, char** argv) {
  // A helper test re-runs this binary without ember::init to check the error a driver gets.
  if (std::getenv("EMBER_TEST_SKIP_INIT") == nullptr) ember::process::enter_from_main(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
