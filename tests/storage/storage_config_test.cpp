// Paths and credentials without a server: URL parsing, the AWS tools' precedence between
// StorageOptions, AWS_* variables and profile files, and the URLs requests go to.
#include <gtest/gtest.h>

#include <fstream>

#include "ember/error.h"
#include "io/storage/retry_policy.h"
#include "io/storage/s3_config.h"
#include "io/storage/storage_url.h"
#include "test_table.h"

using namespace ember;
using namespace ember::testing_storage;

TEST(StorageUrl, SchemesAreToldApart) {
  const StorageUrl s3 = parse_storage_url("s3://bucket/dir/key.parquet");
  EXPECT_EQ(s3.scheme, StorageUrl::Scheme::S3);
  EXPECT_EQ(s3.bucket, "bucket");
  EXPECT_EQ(s3.key, "dir/key.parquet");
  EXPECT_EQ(parse_storage_url("S3://b").key, "");
  EXPECT_EQ(parse_storage_url("https://h/x?y=1").scheme, StorageUrl::Scheme::Http);
  EXPECT_EQ(parse_storage_url("file:///tmp/a.csv").path, "/tmp/a.csv");
  EXPECT_EQ(parse_storage_url("rel/a.csv").scheme, StorageUrl::Scheme::Local);
  EXPECT_FALSE(is_remote_path("/tmp/s3://x"));
  EXPECT_THROW(parse_storage_url("s3:///key"), InvalidArgument);
  EXPECT_THROW(parse_storage_url("http:///x"), InvalidArgument);
}

/// Clears every variable resolve_s3_config reads, so that the machine's own do not leak in.
struct CleanAwsEnvironment {
  ScopedEnv v1{"AWS_ACCESS_KEY_ID", ""}, v2{"AWS_SECRET_ACCESS_KEY", ""},
      v3{"AWS_SESSION_TOKEN", ""}, v4{"AWS_REGION", ""}, v5{"AWS_DEFAULT_REGION", ""},
      v6{"AWS_ENDPOINT_URL", ""}, v7{"AWS_ENDPOINT_URL_S3", ""}, v8{"AWS_PROFILE", ""},
      v9{"AWS_SHARED_CREDENTIALS_FILE", "/nonexistent"}, v10{"AWS_CONFIG_FILE", "/nonexistent"},
      v11{"AWS_CONTAINER_CREDENTIALS_FULL_URI", ""},
      v12{"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", ""},
      v13{"AWS_EC2_METADATA_SERVICE_ENDPOINT", ""}, v14{"AWS_EC2_METADATA_DISABLED", "true"};
};

TEST(S3Config, OptionsThenEnvironmentThenProfiles) {
  const CleanAwsEnvironment clean;
  const ScratchDir dir;
  std::ofstream(dir.sub("credentials")) << "[default]\naws_access_key_id = FILEKEY\n"
                                        << "aws_secret_access_key = filesecret\n"
                                        << "[other]\naws_access_key_id=OTHER\n"
                                        << "aws_secret_access_key=othersecret\n"
                                        << "aws_session_token=othertoken\n";
  std::ofstream(dir.sub("config")) << "[default]\nregion = eu-west-3\n"
                                   << "[profile other]\nregion = ap-south-1\n"
                                   << "endpoint_url = http://127.0.0.1:9000/\n";
  const ScopedEnv credentials("AWS_SHARED_CREDENTIALS_FILE", dir.sub("credentials"));
  const ScopedEnv config("AWS_CONFIG_FILE", dir.sub("config"));

  S3Config c = resolve_s3_config({});
  EXPECT_EQ(c.access_key_id, "FILEKEY");
  EXPECT_EQ(c.region, "eu-west-3");
  EXPECT_FALSE(c.path_style);
  EXPECT_EQ(c.object_url("b", "a b/c+d.csv"),
            "https://b.s3.eu-west-3.amazonaws.com/a%20b/c%2Bd.csv");
  {
    const ScopedEnv profile("AWS_PROFILE", "other");
    c = resolve_s3_config({});
    EXPECT_EQ(c.access_key_id, "OTHER");
    EXPECT_EQ(c.session_token, "othertoken");
    EXPECT_EQ(c.region, "ap-south-1");
    EXPECT_TRUE(c.path_style);
    EXPECT_EQ(c.object_url("b", "k", "list-type=2"), "http://127.0.0.1:9000/b/k?list-type=2");
  }
  {
    const ScopedEnv key("AWS_ACCESS_KEY_ID", "ENVKEY");
    const ScopedEnv secret("AWS_SECRET_ACCESS_KEY", "envsecret");
    const ScopedEnv region("AWS_REGION", "us-west-2");
    const ScopedEnv endpoint("AWS_ENDPOINT_URL", "minio:9000");
    c = resolve_s3_config({});
    EXPECT_EQ(c.access_key_id, "ENVKEY");
    EXPECT_EQ(c.region, "us-west-2");
    EXPECT_EQ(c.endpoint, "https://minio:9000");
    StorageOptions given;
    given.access_key_id = "GIVEN";
    given.secret_access_key = "givensecret";
    given.region = "sa-east-1";
    c = resolve_s3_config(given);
    EXPECT_EQ(c.access_key_id, "GIVEN");
    EXPECT_EQ(c.secret_access_key, "givensecret");
    EXPECT_EQ(c.session_token, "") << "never half from the environment";
    EXPECT_EQ(c.region, "sa-east-1");
  }
}

TEST(S3Config, BadOptionsAreRejected) {
  const CleanAwsEnvironment clean;
  StorageOptions o;
  o.max_connections = 0;
  EXPECT_THROW(resolve_s3_config(o), InvalidArgument);
  StorageOptions half;
  half.access_key_id = "K";
  EXPECT_THROW(resolve_s3_config(half), InvalidArgument);
  EXPECT_EQ(resolve_s3_config({}).access_key_id, "") << "no credentials: unsigned requests";
}

TEST(RetryPolicy, BackoffGrowsAndStaysUnderItsCap) {
  const RetryPolicy p;
  for (int retry = 0; retry < 30; ++retry) {
    const auto d = p.delay(retry);
    EXPECT_GE(d.count(), 0);
    EXPECT_LE(d, std::min(p.max_delay, p.initial_delay * (int64_t{1} << std::min(retry, 20))));
  }
  EXPECT_TRUE(RetryPolicy::retryable_status(503));
  EXPECT_TRUE(RetryPolicy::retryable_status(429));
  EXPECT_FALSE(RetryPolicy::retryable_status(403));
  EXPECT_FALSE(RetryPolicy::retryable_status(404));
}
