// Every reader through an S3-compatible server: whole files, globs over keys, prefixes, and
// the same answers as the local files the objects were uploaded from.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "ember/ember.h"
#include "io/file_split.h"
#include "io/parquet/parquet_scan.h"
#include "storage_test_env.h"
#include "test_table.h"

using namespace ember;
using namespace ember::testing_storage;

namespace {

/// Writes test_rows(first, n, 3) locally in `format` and uploads the parts under `prefix`.
void upload_format(const S3Server& s3, const ScratchDir& dir, const std::string& format,
                   const std::string& prefix, int64_t first, int64_t n) {
  const DataFrame rows = test_rows(first, n, 3);
  const std::string local = dir.sub(format);
  if (format == "parquet") rows.write_parquet(local);
  if (format == "arrow") rows.write_arrow(local);
  if (format == "csv") rows.write_csv(local);
  if (format == "jsonl") rows.write_jsonl(local);
  ASSERT_EQ(upload_dir(s3, local, "data", prefix), 3);
}

}  // namespace

TEST(S3Read, EveryReaderRoundTripsThroughTheServer) {
  EMBER_REQUIRE_S3(s3);
  const ScratchDir dir;
  for (const std::string format : {"parquet", "arrow", "csv", "jsonl"}) {
    SCOPED_TRACE(format);
    upload_format(s3, dir, format, "round/" + format + "/", 100, 1000);
    const std::string glob = "s3://data/round/" + format + "/*." + format;
    Table t;
    if (format == "parquet") t = read_parquet(glob, ParquetOptions{{}, s3.options()}).collect();
    if (format == "arrow") t = read_arrow(glob, ArrowOptions{s3.options()}).collect();
    if (format == "csv") {
      CsvOptions o;
      o.storage = s3.options();
      t = read_csv(glob, o).collect();
    }
    if (format == "jsonl") {
      JsonlOptions o;
      o.storage = s3.options();
      t = read_jsonl(glob, o).collect();
    }
    expect_rows(t, 100, 1000);
  }
}

TEST(S3Read, LargeTextFilesAreSplitIntoRangesLikeLocalOnes) {
  EMBER_REQUIRE_S3(s3);
  const ScratchDir dir;
  upload_format(s3, dir, "csv", "split/csv/", 0, 60000);
  upload_format(s3, dir, "jsonl", "split/jsonl/", 0, 60000);
  CsvOptions c;
  c.storage = s3.options();
  c.split_bytes = 64 << 10;
  const DataFrame csv = read_csv("s3://data/split/csv/", c);
  EXPECT_NE(csv.explain().find("3 files, "), std::string::npos) << csv.explain();
  EXPECT_EQ(csv.explain().find("3 partitions"), std::string::npos) << "split into ranges";
  expect_rows(csv.collect(), 0, 60000);
  JsonlOptions j;
  j.storage = s3.options();
  j.split_bytes = 64 << 10;
  expect_rows(read_jsonl("s3://data/split/jsonl/*.jsonl", j).collect(), 0, 60000);
}

TEST(S3Read, GlobsMatchKeysAsLocalGlobsMatchNames) {
  EMBER_REQUIRE_S3(s3);
  for (const std::string key :
       {"g/a/1.csv", "g/a/2.csv", "g/a/x.json", "g/a/_SUCCESS", "g/a/deeper/3.csv", "g/b/4.csv"})
    s3.put("data", key, "id\n1\n");
  auto found = [&](const std::string& pattern) { return expand_paths(pattern, s3.options()); };
  using V = std::vector<std::string>;
  EXPECT_EQ(found("s3://data/g/a/*.csv"), (V{"s3://data/g/a/1.csv", "s3://data/g/a/2.csv"}));
  EXPECT_EQ(found("s3://data/g/*/?.csv"),
            (V{"s3://data/g/a/1.csv", "s3://data/g/a/2.csv", "s3://data/g/b/4.csv"}));
  EXPECT_EQ(found("s3://data/g/a/"),
            (V{"s3://data/g/a/1.csv", "s3://data/g/a/2.csv", "s3://data/g/a/x.json"}));
  EXPECT_EQ(found("s3://data/g/a/_*"), (V{"s3://data/g/a/_SUCCESS"}));
  EXPECT_EQ(found("s3://data/g/a/[12].csv"), (V{"s3://data/g/a/1.csv", "s3://data/g/a/2.csv"}));
  const std::string none = error_of([&] { found("s3://data/g/a/*.parquet"); });
  EXPECT_NE(none.find("no object matches 's3://data/g/a/*.parquet'"), std::string::npos) << none;
}

TEST(S3Read, ListingsFollowContinuationTokens) {
  EMBER_REQUIRE_S3(s3);
  // A listing page holds at most 1000 keys.
  for (int i = 0; i < 1010; ++i) s3.put("data", "many/" + std::to_string(100000 + i), "");
  const std::vector<std::string> keys = expand_paths("s3://data/many/*", s3.options());
  ASSERT_EQ(keys.size(), 1010u);
  EXPECT_EQ(keys.front(), "s3://data/many/100000");
  EXPECT_EQ(keys.back(), "s3://data/many/101009");
}

TEST(S3Read, ParquetReadsTheFooterWithOneRequestAndOnlyTheColumnsAsked) {
  EMBER_REQUIRE_S3(s3);
  const ScratchDir dir;
  test_rows(0, 5000, 1).write_parquet(dir.sub("one"));
  s3.put("data", "pq/one.parquet", read_bytes(dir.sub("one") + "/part-00000.parquet"));
  s3.control("clear=1");
  const DataFrame df = read_parquet("s3://data/pq/one.parquet", ParquetOptions{{}, s3.options()});
  const std::string planned = s3.control("");
  // HEAD for the size, one GET for the footer (the file's last 64 KiB).
  EXPECT_NE(planned.find("\"GET\":1,"), std::string::npos) << planned;
  EXPECT_NE(planned.find("\"HEAD\":1,"), std::string::npos) << planned;
  const Table t = df.select({col("x")}).collect();
  ASSERT_EQ(t.num_rows(), 5000);
  int64_t sum = 0;
  for (int64_t i = 0; i < t.num_rows(); ++i) sum += std::get<int64_t>(t.column("x").get(i));
  EXPECT_EQ(sum, 3 * (4999 * 5000 / 2));
}

/// GETs the server has answered since its counters were cleared.
int gets(const S3Server& s3) {
  const std::string counters = s3.control("");
  const size_t at = counters.find("\"GET\":");
  return at == std::string::npos ? -1 : std::atoi(counters.c_str() + at + 6);
}

TEST(S3Read, ParquetFetchesARowGroupAheadAndItsReaderUsesThoseBytes) {
  EMBER_REQUIRE_S3(s3);
  const ScratchDir dir;
  ParquetWriteOptions groups;
  groups.row_group_rows = 1000;
  test_rows(0, 12000, 1).write_parquet(dir.sub("groups"), groups);  // one file, 12 row groups
  s3.put("data", "pq/groups.parquet", read_bytes(dir.sub("groups") + "/part-00000.parquet"));
  const ParquetScan scan = plan_parquet_scan("s3://data/pq/groups.parquet", {}, s3.options());
  ASSERT_EQ(scan.parts.size(), 12u);
  s3.control("clear=1");
  // The pipeline runner asks for the partition it will start next while others run
  // (partition_supply_test): row group 5's chunks (three adjacent columns) come in one GET on
  // a thread of their own, before its reader opens, which then asks the server for nothing.
  std::shared_ptr<Prefetched> ahead = prefetch_parquet_part(scan, 5);
  ASSERT_NE(ahead, nullptr);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (gets(s3) < 1 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(gets(s3), 1) << s3.control("");
  auto reader = open_parquet_part(scan, 5, 300, std::move(ahead));
  int64_t rows = 0, first = -1;
  while (auto batch = reader->next()) {
    if (first < 0) first = batch->column(0).value<int64_t>(0);
    rows += batch->num_rows();
  }
  EXPECT_EQ(rows, 1000);
  EXPECT_EQ(first, 5000);
  EXPECT_EQ(gets(s3), 1) << "the reader fetched the prefetched row group again";
  // Another row group's fetch is not used for this one; a local file has nothing to fetch.
  auto other = open_parquet_part(scan, 6, 1000, prefetch_parquet_part(scan, 7));
  EXPECT_EQ(other->next()->column(0).value<int64_t>(0), 6000);
  EXPECT_EQ(gets(s3), 3) << s3.control("");
  const ParquetScan local = plan_parquet_scan(dir.sub("groups") + "/*.parquet", {});
  EXPECT_EQ(prefetch_parquet_part(local, 1), nullptr);
}

TEST(S3Read, CredentialsComeFromTheEnvironmentAndProfiles) {
  EMBER_REQUIRE_S3(s3);
  s3.put("data", "env/a.csv", "id\n7\n");
  const StorageOptions direct = s3.options();
  {
    const ScopedEnv endpoint("AWS_ENDPOINT_URL", direct.endpoint_url);
    const ScopedEnv key("AWS_ACCESS_KEY_ID", "S3RVER");
    const ScopedEnv secret("AWS_SECRET_ACCESS_KEY", "S3RVER");
    EXPECT_EQ(read_csv("s3://data/env/a.csv").collect().num_rows(), 1);
  }
  const ScratchDir dir;
  std::ofstream(dir.sub("credentials"))
      << "[default]\naws_access_key_id = WRONG\naws_secret_access_key = WRONG\n\n"
      << "[tests]\naws_access_key_id = S3RVER\naws_secret_access_key = S3RVER\n";
  const ScopedEnv endpoint("AWS_ENDPOINT_URL", direct.endpoint_url);
  const ScopedEnv file("AWS_SHARED_CREDENTIALS_FILE", dir.sub("credentials"));
  const ScopedEnv no_key("AWS_ACCESS_KEY_ID", "");
  {
    const ScopedEnv profile("AWS_PROFILE", "tests");
    EXPECT_EQ(read_csv("s3://data/env/a.csv").collect().num_rows(), 1);
  }
  const std::string denied = error_of([] { read_csv("s3://data/env/a.csv"); });
  EXPECT_NE(denied.find("403 InvalidAccessKeyId"), std::string::npos) << denied;
  // StorageOptions win over the profile.
  CsvOptions given;
  given.storage = direct;
  EXPECT_EQ(read_csv("s3://data/env/a.csv", given).collect().num_rows(), 1);
}
