// Every reader from http:// URLs, served by Python's http.server on loopback (which ignores
// Range headers: the client keeps only the bytes it asked for); https:// with a certificate the
// test makes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ember/ember.h"
#include "storage_servers.h"
#include "test_table.h"

using namespace ember;
using namespace ember::testing_storage;

TEST(HttpRead, EveryReaderReadsAUrl) {
  const ScratchDir dir;
  const DataFrame rows = test_rows(5, 3000, 1);
  rows.write_parquet(dir.sub("parquet"));
  rows.write_arrow(dir.sub("arrow"));
  rows.write_csv(dir.sub("csv"));
  rows.write_jsonl(dir.sub("jsonl"));
  const HttpFileServer http(dir.path());
  expect_rows(read_parquet(http.url("parquet/part-00000.parquet")).collect(), 5, 3000);
  expect_rows(read_arrow(http.url("arrow/part-00000.arrow")).collect(), 5, 3000);
  expect_rows(read_csv(http.url("csv/part-00000.csv")).collect(), 5, 3000);
  JsonlOptions split;
  split.split_bytes = 16 << 10;  // several ranges of one URL
  expect_rows(read_jsonl(http.url("jsonl/part-00000.jsonl"), split).collect(), 5, 3000);
}

TEST(HttpRead, AMissingUrlNamesItAndTheAnswer) {
  const ScratchDir dir;
  const HttpFileServer http(dir.path());
  const std::string url = http.url("nothing.parquet");
  const std::string msg = error_of<IoError>([&] { read_parquet(url); });
  EXPECT_NE(msg.find("'" + url + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("404"), std::string::npos) << msg;
}

TEST(HttpsRead, AServerCertificateIsCheckedAgainstAwsCaBundle) {
  const ScratchDir dir, keys;
  const DataFrame rows = test_rows(5, 2000, 1);
  rows.write_parquet(dir.sub("parquet"));
  rows.write_csv(dir.sub("csv"));
  const HttpsFileServer https(dir.path(), keys.path());
  const ScopedEnv curl_bundle("CURL_CA_BUNDLE", "");
  {
    const ScopedEnv bundle("AWS_CA_BUNDLE", https.certificate());
    expect_rows(read_parquet(https.url("parquet/part-00000.parquet")).collect(), 5, 2000);
    expect_rows(read_csv(https.url("csv/part-00000.csv")).collect(), 5, 2000);
  }
  {
    // The system's CAs do not sign the test's certificate: refused at once, not retried, and
    // the error says what to set.
    const ScopedEnv bundle("AWS_CA_BUNDLE", "");
    const std::string url = https.url("parquet/part-00000.parquet");
    const std::string msg = error_of<IoError>([&] { read_parquet(url); });
    EXPECT_NE(msg.find("'" + url + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("certificate"), std::string::npos) << msg;
    EXPECT_NE(msg.find("AWS_CA_BUNDLE"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(1 attempt)"), std::string::npos) << msg;
  }
  {
    const ScopedEnv bundle("AWS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt");
    const std::string msg =
        error_of<IoError>([&] { read_csv(https.url("csv/part-00000.csv")).collect(); });
    EXPECT_NE(msg.find("checked against the CA bundle /etc/ssl/certs/ca-certificates.crt"),
              std::string::npos)
        << msg;
  }
}
