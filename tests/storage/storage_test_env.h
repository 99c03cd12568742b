// The servers and data every object storage test shares.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "storage_servers.h"

namespace ember::testing_storage {

/// Starts s3rver once (EMBER_NPM_DIR names the npm folder that holds it).
class StorageTestEnv : public testing::Environment {
 public:
  void SetUp() override {
    const char* npm = std::getenv("EMBER_NPM_DIR");
    server() = std::make_unique<S3Server>(npm ? npm : "");
  }
  void TearDown() override { server().reset(); }

  static std::unique_ptr<S3Server>& server() {
    static std::unique_ptr<S3Server> s;
    return s;
  }
};

/// The shared server; skips the test when npm s3rver is not installed.
#define EMBER_REQUIRE_S3(var)                                            \
  const auto& var = *::ember::testing_storage::StorageTestEnv::server(); \
  if (!var.available()) GTEST_SKIP() << "npm s3rver is not installed (EMBER_NPM_DIR)"

}  // namespace ember::testing_storage
