// Every writer to an S3 prefix: the set appears whole with _SUCCESS last, replaces an earlier
// output only when it succeeds, and a failed write leaves no object and no open upload.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ember/ember.h"
#include "io/file_split.h"
#include "io/output/staging_dir.h"
#include "io/storage/s3_config.h"
#include "io/storage/s3_multipart_upload.h"
#include "storage_test_env.h"
#include "test_table.h"

using namespace ember;
using namespace ember::testing_storage;

namespace {

std::string listing(const S3Server& s3, const std::string& prefix) {
  std::string out;
  try {
    for (const std::string& p : expand_paths(prefix, s3.options())) out += p + " ";
    for (const std::string& p : expand_paths(prefix + "_*", s3.options())) out += p + " ";
  } catch (const IoError&) {
  }
  return out;
}

}  // namespace

TEST(S3Write, EveryWriterRoundTripsThroughTheServer) {
  EMBER_REQUIRE_S3(s3);
  const DataFrame rows = test_rows(0, 5000, 3);
  ParquetWriteOptions parquet;
  parquet.storage = s3.options();
  rows.write_parquet("s3://data/w/parquet", parquet);
  ArrowWriteOptions arrow;
  arrow.storage = s3.options();
  rows.write_arrow("s3://data/w/arrow/", arrow);
  CsvWriteOptions csv;
  csv.storage = s3.options();
  rows.write_csv("s3://data/w/csv", csv);
  JsonlWriteOptions jsonl;
  jsonl.storage = s3.options();
  rows.write_jsonl("s3://data/w/jsonl", jsonl);
  for (const std::string format : {"parquet", "arrow", "csv", "jsonl"}) {
    SCOPED_TRACE(format);
    const std::string prefix = "s3://data/w/" + format + "/";
    EXPECT_EQ(listing(s3, prefix), prefix + "part-00000." + format + " " + prefix + "part-00001." +
                                       format + " " + prefix + "part-00002." + format + " " +
                                       prefix + "_SUCCESS ");
  }
  expect_rows(read_parquet("s3://data/w/parquet/", ParquetOptions{{}, s3.options()}).collect(), 0,
              5000);
  expect_rows(read_arrow("s3://data/w/arrow/*.arrow", ArrowOptions{s3.options()}).collect(), 0,
              5000);
  CsvOptions c;
  c.storage = s3.options();
  expect_rows(read_csv("s3://data/w/csv/", c).collect(), 0, 5000);
  JsonlOptions j;
  j.storage = s3.options();
  expect_rows(read_jsonl("s3://data/w/jsonl/", j).collect(), 0, 5000);
  EXPECT_NE(s3.control("").find("\"open_uploads\":0"), std::string::npos) << s3.control("");
}

TEST(S3Write, ALargePartGoesUpInSeveralPiecesAndARewriteReplacesTheSet) {
  EMBER_REQUIRE_S3(s3);
  CsvWriteOptions csv;
  csv.storage = s3.options();
  // One partition of about 25 MB: a part of 16 MiB and the rest.
  s3.control("clear=1");
  test_rows(0, 1200000, 1).write_csv("s3://data/big/", csv);
  const std::string served = s3.control("");
  EXPECT_NE(served.find("\"PUT\":3,"), std::string::npos) << "2 parts and _SUCCESS: " << served;
  CsvOptions c;
  c.storage = s3.options();
  expect_rows(read_csv("s3://data/big/", c).collect(), 0, 1200000);
  // Fewer partitions now: part-00001 and part-00002 of the first write must go.
  test_rows(0, 3000, 3).write_csv("s3://data/big/", csv);
  test_rows(10, 100, 1).write_csv("s3://data/big/", csv);
  EXPECT_EQ(listing(s3, "s3://data/big/"), "s3://data/big/part-00000.csv s3://data/big/_SUCCESS ");
  expect_rows(read_csv("s3://data/big/", c).collect(), 10, 100);
}

TEST(S3Write, AFailedWriteLeavesThePreviousOutputAndNoOpenUpload) {
  EMBER_REQUIRE_S3(s3);
  CsvWriteOptions csv;
  csv.storage = s3.options();
  test_rows(0, 100, 2).write_csv("s3://data/keep/", csv);
  const std::string before = listing(s3, "s3://data/keep/");
  // A query that fails while it runs (a value that is no int64) uploads nothing.
  s3.put("data", "bad/a.csv", "id\n1\n2\nnot a number\n");
  CsvOptions typed;
  typed.storage = s3.options();
  typed.schema = Schema({Field{"id", int64()}});
  const std::string failed = error_of<ParseError>(
      [&] { read_csv("s3://data/bad/a.csv", typed).write_csv("s3://data/keep/", csv); });
  EXPECT_NE(failed.find("s3://data/bad/a.csv"), std::string::npos) << failed;
  // A query whose upload is denied aborts every upload it started.
  s3.control("deny_parts=1");
  const std::string denied =
      error_of<IoError>([&] { test_rows(0, 100, 2).write_csv("s3://data/keep/", csv); });
  s3.control("deny_parts=0");
  EXPECT_NE(denied.find("403 AccessDenied"), std::string::npos) << denied;
  EXPECT_NE(denied.find("s3://data/keep/part-0000"), std::string::npos) << denied;
  EXPECT_EQ(listing(s3, "s3://data/keep/"), before);
  EXPECT_NE(s3.control("").find("\"open_uploads\":0"), std::string::npos) << s3.control("");
  CsvOptions c;
  c.storage = s3.options();
  expect_rows(read_csv("s3://data/keep/", c).collect(), 0, 100);
}

TEST(S3Write, ForeignObjectsAndHttpTargetsAreRefusedBeforeAnyWork) {
  EMBER_REQUIRE_S3(s3);
  s3.put("data", "foreign/notes.txt", "mine");
  CsvWriteOptions csv;
  csv.storage = s3.options();
  const std::string foreign =
      error_of<InvalidArgument>([&] { test_rows(0, 10, 1).write_csv("s3://data/foreign", csv); });
  EXPECT_NE(foreign.find("s3://data/foreign/notes.txt"), std::string::npos) << foreign;
  const std::string http = error_of<InvalidArgument>(
      [&] { test_rows(0, 10, 1).write_csv("http://127.0.0.1:1/out", csv); });
  EXPECT_NE(http.find("read-only"), std::string::npos) << http;
  const std::string root =
      error_of<InvalidArgument>([&] { test_rows(0, 10, 1).write_csv("s3://data", csv); });
  EXPECT_NE(root.find("bucket's root"), std::string::npos) << root;
  CsvOptions c;
  c.storage = s3.options();
  s3.put("data", "self/part-00000.csv", "id,x,s\n1,3,v1\n");
  const std::string self = error_of<InvalidArgument>(
      [&] { read_csv("s3://data/self/", c).write_csv("s3://data/self", csv); });
  EXPECT_NE(self.find("the query reads"), std::string::npos) << self;
}

// A writer whose guard could not run (ember::init never called, say) leaves its staging
// directory and its list of uploads when it is killed: the next write to the prefix from the
// machine aborts what the list names, and removes the directory.
TEST(S3Write, TheNextWriteAbortsTheUploadsADeadWriterListed) {
  EMBER_REQUIRE_S3(s3);
  const ScratchDir scratch;
  const std::filesystem::path tmp = scratch.sub("tmp");
  std::filesystem::create_directories(tmp);
  const S3Config config = resolve_s3_config(s3.options());
  MultipartUpload left(config, "data", "swept/part-00000.csv");
  left.upload_part(1, "id\n1\n");
  // A staging directory named as a dead process's: this one's name, another pid that has ended.
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);
  std::string name = staging_name("s3-data-swept", StagingRole::Staging);
  const std::string mine = "-" + std::to_string(::getpid()) + "-";
  ASSERT_NE(name.find(mine), std::string::npos) << name;
  name.replace(name.find(mine), mine.size(), "-" + std::to_string(dead) + "-");
  const std::filesystem::path debris = tmp / name;
  std::filesystem::create_directories(debris);
  std::ofstream(debris / ".uploads") << left.upload_id() << " " << left.key() << "\n";
  const std::string before = s3.control("");
  ASSERT_EQ(before.find("\"open_uploads\":0"), std::string::npos) << before;

  const ScopedEnv tmpdir("TMPDIR", tmp.string());
  CsvWriteOptions csv;
  csv.storage = s3.options();
  test_rows(0, 10, 1).write_csv("s3://data/swept/", csv);
  EXPECT_FALSE(std::filesystem::exists(debris));
  EXPECT_NE(s3.control("").find("\"open_uploads\":0"), std::string::npos) << s3.control("");
}
