// Credentials from the sources behind the profile files, served on loopback: a profile's
// credential_process, a container credentials endpoint with its token, the EC2 instance
// metadata service (IMDSv2), and STS's AssumeRoleWithWebIdentity. Requests go through the s3rver
// proxy, which checks signatures.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "ember/ember.h"
#include "storage_servers.h"
#include "storage_test_env.h"
#include "test_table.h"

using namespace ember;
using namespace ember::testing_storage;

namespace {

constexpr const char* kContainerToken = "Bearer test-container-token";

/// No key anywhere but in the source under test; the endpoint is s3rver's proxy.
struct NoKeys {
  ScopedEnv v1{"AWS_ACCESS_KEY_ID", ""}, v2{"AWS_SECRET_ACCESS_KEY", ""},
      v3{"AWS_SESSION_TOKEN", ""}, v4{"AWS_PROFILE", ""},
      v5{"AWS_SHARED_CREDENTIALS_FILE", "/nonexistent"}, v6{"AWS_CONFIG_FILE", "/nonexistent"},
      v7{"AWS_CONTAINER_CREDENTIALS_FULL_URI", ""},
      v8{"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", ""}, v9{"AWS_EC2_METADATA_SERVICE_ENDPOINT", ""},
      v10{"AWS_EC2_METADATA_DISABLED", "true"}, v11{"AWS_ROLE_ARN", ""},
      v12{"AWS_WEB_IDENTITY_TOKEN_FILE", ""}, v13{"AWS_ENDPOINT_URL_STS", ""};
};

/// The count `name` in a JSON object of counts (0 when absent).
int64_t count_of(const std::string& json, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(json, m, std::regex("\"" + name + "\": *(\\d+)"))) return 0;
  return std::stoll(m[1]);
}

/// Reads s3://data/creds/a.csv with only the endpoint given: signed with whatever credentials
/// the sources give; the proxy's counts of signed requests and of those with a session token.
std::pair<int64_t, int64_t> read_signed(const S3Server& s3) {
  s3.control("clear=1");
  CsvOptions csv;
  csv.storage.endpoint_url = s3.options().endpoint_url;
  const Table t = read_csv("s3://data/creds/a.csv", csv).collect();
  EXPECT_EQ(t.num_rows(), 2);
  const std::string served = s3.control("");
  return {count_of(served, "signed"), count_of(served, "with_token")};
}

/// The IoError of that read when a credential source fails.
std::string read_error(const S3Server& s3) {
  CsvOptions csv;
  csv.storage.endpoint_url = s3.options().endpoint_url;
  return error_of<IoError>([&] { read_csv("s3://data/creds/a.csv", csv).collect(); });
}

/// tests/storage/fake_credentials_server.py on a free loopback port.
class FakeCredentialService {
 public:
  std::string base() const { return "http://127.0.0.1:" + process_.first_line(); }

 private:
  ChildProcess process_{
      {"/usr/bin/python3", std::string(EMBER_STORAGE_TEST_DIR) + "/fake_credentials_server.py",
       kContainerToken},
      true};
};

class CredentialSources : public testing::Test {
 protected:
  void SetUp() override {
    const auto& s3 = *StorageTestEnv::server();
    if (!s3.available()) GTEST_SKIP() << "npm s3rver is not installed (EMBER_NPM_DIR)";
    s3.put("data", "creds/a.csv", "id\n1\n2\n");
  }
  const S3Server& s3() const { return *StorageTestEnv::server(); }
  NoKeys no_keys_;
};

}  // namespace

TEST_F(CredentialSources, AProfilesCredentialProcessSignsRequestsWithItsSessionToken) {
  const ScratchDir dir;
  const std::string script = dir.sub("creds.sh");
  std::ofstream(script) << "#!/bin/sh\necho '{\"Version\": 1, \"AccessKeyId\": \"S3RVER\", "
                           "\"SecretAccessKey\": \"S3RVER\", \"SessionToken\": \"from-process\", "
                           "\"Expiration\": \"2099-01-01T00:00:00Z\"}'\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  std::ofstream(dir.sub("config")) << "[profile batch]\ncredential_process = " << script << "\n";
  const ScopedEnv config("AWS_CONFIG_FILE", dir.sub("config")), profile("AWS_PROFILE", "batch");
  const auto [signed_requests, with_token] = read_signed(s3());
  EXPECT_GT(signed_requests, 0);
  EXPECT_EQ(with_token, signed_requests);

  // A command that fails: its status and what it printed, not an unsigned request.
  const std::string failing = dir.sub("fail.sh");
  std::ofstream(failing) << "#!/bin/sh\necho 'the SSO session has expired' >&2\nexit 3\n";
  std::filesystem::permissions(failing, std::filesystem::perms::owner_all);
  std::ofstream(dir.sub("config2")) << "[default]\ncredential_process = " << failing << "\n";
  const ScopedEnv config2("AWS_CONFIG_FILE", dir.sub("config2")), other("AWS_PROFILE", "");
  const std::string msg = read_error(s3());
  EXPECT_NE(msg.find("credential_process"), std::string::npos) << msg;
  EXPECT_NE(msg.find("status 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the SSO session has expired"), std::string::npos) << msg;
}

TEST_F(CredentialSources, TheContainerEndpointWithItsAuthorizationToken) {
  const FakeCredentialService service;
  const std::string base = service.base();
  const ScopedEnv uri("AWS_CONTAINER_CREDENTIALS_FULL_URI", base + "/container/credentials");
  {
    const ScopedEnv token("AWS_CONTAINER_AUTHORIZATION_TOKEN", kContainerToken);
    const auto [signed_requests, with_token] = read_signed(s3());
    EXPECT_GT(signed_requests, 0);
    EXPECT_EQ(with_token, signed_requests);
    read_signed(s3());  // the answer is kept until it nears its expiry
    EXPECT_EQ(count_of(http_get(base + "/counts"), "container_credentials"), 1);
  }
  // A wrong token at another endpoint: the endpoint's answer, not an unsigned request.
  const ScopedEnv token("AWS_CONTAINER_AUTHORIZATION_TOKEN", "Bearer wrong");
  const ScopedEnv other_uri("AWS_CONTAINER_CREDENTIALS_FULL_URI",
                            base + "/container/credentials?again");
  const std::string msg = read_error(s3());
  EXPECT_NE(msg.find("container credentials endpoint"), std::string::npos) << msg;
  EXPECT_NE(msg.find("401"), std::string::npos) << msg;
}

TEST_F(CredentialSources, TheInstanceMetadataServiceGivesTheRolesCredentialsOnce) {
  const FakeCredentialService service;
  const std::string base = service.base();
  const ScopedEnv enabled("AWS_EC2_METADATA_DISABLED", "");
  const ScopedEnv endpoint("AWS_EC2_METADATA_SERVICE_ENDPOINT", base);
  const auto [signed_requests, with_token] = read_signed(s3());
  EXPECT_GT(signed_requests, 0);
  EXPECT_EQ(with_token, signed_requests);
  read_signed(s3());
  const std::string counts = http_get(base + "/counts");
  EXPECT_EQ(count_of(counts, "tokens"), 1) << counts;
  EXPECT_EQ(count_of(counts, "imds_credentials"), 1) << counts;
  // Disabled: not asked, and the requests go unsigned.
  const ScopedEnv disabled("AWS_EC2_METADATA_DISABLED", "true");
  EXPECT_EQ(read_signed(s3()).first, 0);
}

TEST_F(CredentialSources, AWebIdentityTokenIsExchangedWithStsForTheRolesCredentials) {
  const FakeCredentialService service;
  const std::string base = service.base();
  const ScratchDir dir;
  std::ofstream(dir.sub("token")) << "eyJ-test-web-identity-token\n";
  const ScopedEnv sts("AWS_ENDPOINT_URL_STS", base + "/sts");
  const ScopedEnv file("AWS_WEB_IDENTITY_TOKEN_FILE", dir.sub("token"));
  {
    const ScopedEnv role("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/ember-test");
    const auto [signed_requests, with_token] = read_signed(s3());
    EXPECT_GT(signed_requests, 0);
    EXPECT_EQ(with_token, signed_requests);
    read_signed(s3());  // kept until it nears its expiry
    EXPECT_EQ(count_of(http_get(base + "/counts"), "sts_credentials"), 1);
  }
  // A role STS refuses: its code and message, not an unsigned request.
  const ScopedEnv role("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/not-allowed");
  std::string msg = read_error(s3());
  EXPECT_NE(msg.find("AssumeRoleWithWebIdentity"), std::string::npos) << msg;
  EXPECT_NE(msg.find("403 AccessDenied: Not authorized"), std::string::npos) << msg;
  // A token file that is not there says so.
  const ScopedEnv missing("AWS_WEB_IDENTITY_TOKEN_FILE", dir.sub("no-such-token"));
  msg = read_error(s3());
  EXPECT_NE(msg.find("web identity token file"), std::string::npos) << msg;
}
