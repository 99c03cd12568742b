// End-to-end tests: whole queries through the public API.
#include <gtest/gtest.h>

#include "ember/ember.h"

int main(int argc, char** argv) {
  ember::init(argc, argv);  // serves as a worker when started as one
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
