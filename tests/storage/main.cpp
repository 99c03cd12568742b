// Object storage tests: one S3-compatible server (npm s3rver, behind a misbehaving proxy) for
// the whole run, on loopback; nothing else is contacted.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "storage_test_env.h"

int main(int argc, char** argv) {
  ember::init(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  testing::AddGlobalTestEnvironment(new ember::testing_storage::StorageTestEnv);
  return RUN_ALL_TESTS();
}
