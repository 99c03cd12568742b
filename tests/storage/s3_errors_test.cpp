// What a user sees when object storage says no: the URL and the server's answer, and retries
// where the server is only busy or the connection broke.
#include <gtest/gtest.h>

#include <chrono>

#include "ember/ember.h"
#include "storage_test_env.h"
#include "test_table.h"

using namespace ember;
using namespace ember::testing_storage;

namespace {

CsvOptions csv_with(const StorageOptions& storage) {
  CsvOptions o;
  o.storage = storage;
  return o;
}

}  // namespace

TEST(S3Errors, AMissingObjectOrBucketNamesTheUrlAndTheAnswer) {
  EMBER_REQUIRE_S3(s3);
  const std::string object =
      error_of<IoError>([&] { read_csv("s3://data/no/such.csv", csv_with(s3.options())); });
  EXPECT_NE(object.find("'s3://data/no/such.csv'"), std::string::npos) << object;
  EXPECT_NE(object.find("404 NoSuchKey"), std::string::npos) << object;
  const std::string bucket =
      error_of<IoError>([&] { read_csv("s3://nobucket/a.csv", csv_with(s3.options())); });
  EXPECT_NE(bucket.find("'s3://nobucket/a.csv'"), std::string::npos) << bucket;
  EXPECT_NE(bucket.find("404 NoSuchBucket"), std::string::npos) << bucket;
  const std::string listing =
      error_of<IoError>([&] { read_csv("s3://nobucket/*.csv", csv_with(s3.options())); });
  EXPECT_NE(listing.find("'s3://nobucket/'"), std::string::npos) << listing;
  EXPECT_NE(listing.find("NoSuchBucket"), std::string::npos) << listing;
}

TEST(S3Errors, WrongCredentialsAreDeniedAndRightOnesRead) {
  EMBER_REQUIRE_S3(s3);
  s3.put("data", "creds/a.csv", "id\n1\n2\n");
  StorageOptions wrong_secret = s3.options();
  wrong_secret.secret_access_key = "not-the-secret";
  const std::string signature =
      error_of<IoError>([&] { read_csv("s3://data/creds/a.csv", csv_with(wrong_secret)); });
  EXPECT_NE(signature.find("'s3://data/creds/a.csv'"), std::string::npos) << signature;
  EXPECT_NE(signature.find("403 SignatureDoesNotMatch"), std::string::npos) << signature;
  EXPECT_NE(signature.find("check the credentials"), std::string::npos) << signature;
  StorageOptions wrong_key = s3.options();
  wrong_key.access_key_id = "NOBODY";
  const std::string key =
      error_of<IoError>([&] { read_csv("s3://data/creds/*.csv", csv_with(wrong_key)); });
  EXPECT_NE(key.find("403 InvalidAccessKeyId"), std::string::npos) << key;
  EXPECT_EQ(read_csv("s3://data/creds/a.csv", csv_with(s3.options())).collect().num_rows(), 2);
}

TEST(S3Errors, ThrottlingAndResetsAreRetried) {
  EMBER_REQUIRE_S3(s3);
  const ScratchDir dir;
  test_rows(0, 2000, 1).write_parquet(dir.sub("p"));
  s3.put("data", "retry/a.parquet", read_bytes(dir.sub("p") + "/part-00000.parquet"));
  s3.control("clear=1&slowdown=3&reset=2");
  const Table t =
      read_parquet("s3://data/retry/a.parquet", ParquetOptions{{}, s3.options()}).collect();
  expect_rows(t, 0, 2000);
  const std::string served = s3.control("");
  EXPECT_NE(served.find("\"slowdown\":3,\"reset\":2,"), std::string::npos) << served;
}

TEST(S3Errors, ThrottlingThatNeverEndsIsAnErrorWithTheAnswer) {
  EMBER_REQUIRE_S3(s3);
  s3.put("data", "busy/a.csv", "id\n1\n");
  s3.control("slowdown=1000");
  const std::string busy =
      error_of<IoError>([&] { read_csv("s3://data/busy/a.csv", csv_with(s3.options())); });
  s3.control("slowdown=0");
  EXPECT_NE(busy.find("'s3://data/busy/a.csv'"), std::string::npos) << busy;
  EXPECT_NE(busy.find("503 SlowDown: Please reduce your request rate."), std::string::npos) << busy;
}

TEST(S3Errors, ABadEndpointNamesTheUrlAndWhatFailed) {
  EMBER_REQUIRE_S3(s3);
  StorageOptions nowhere = s3.options();
  nowhere.endpoint_url = "http://127.0.0.1:" + std::to_string(free_loopback_port());
  const auto start = std::chrono::steady_clock::now();
  const std::string refused =
      error_of<IoError>([&] { read_csv("s3://data/a.csv", csv_with(nowhere)); });
  EXPECT_NE(refused.find("'s3://data/a.csv'"), std::string::npos) << refused;
  EXPECT_NE(refused.find(nowhere.endpoint_url), std::string::npos) << refused;
  EXPECT_NE(refused.find("onnect"), std::string::npos) << refused;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(S3Errors, AKeyWithoutItsSecretIsRejectedBeforeAnyRequest) {
  StorageOptions half;
  half.endpoint_url = "http://127.0.0.1:1";
  half.access_key_id = "AKIA";
  const std::string msg =
      error_of<InvalidArgument>([&] { read_csv("s3://data/a.csv", csv_with(half)); });
  EXPECT_NE(msg.find("has no secret access key"), std::string::npos) << msg;
}
