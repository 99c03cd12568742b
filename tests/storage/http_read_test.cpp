// Every reader from http:// URLs, served by Python's http.server on loopback (which ignores
// Range headers: the client keeps only the bytes it asked for).
#include <gtest/gtest.h>

#include <filesystem>

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
