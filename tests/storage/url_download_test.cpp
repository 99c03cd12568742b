// Expr::url_download: files behind http://, s3://, file:// URLs and local paths become a binary
// column, in row order, under OnError::Raise and Null; a UDF reads the bytes in the same query.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "storage_servers.h"
#include "storage_test_env.h"
#include "test_table.h"

using namespace ember;
using namespace ember::testing_storage;

namespace {

/// File i's bytes: every byte value occurs, and sizes differ (0 to ~2 KiB).
std::string file_bytes(int i) {
  std::string out;
  for (int k = 0; k < (i * 37) % 2000; ++k) out.push_back(static_cast<char>((i + k * 7) & 0xff));
  return out;
}

/// Writes files f<i> for i in [0, n) under `dir`.
void write_files(const std::string& dir, int n) {
  for (int i = 0; i < n; ++i)
    std::ofstream(dir + "/f" + std::to_string(i), std::ios::binary) << file_bytes(i);
}

/// A table of `urls` (column "url", nullopt a null), in `parts` partitions, with "i" its row.
DataFrame url_table(const std::vector<std::optional<std::string>>& urls, int parts) {
  std::vector<int64_t> rows;
  for (size_t i = 0; i < urls.size(); ++i) rows.push_back(static_cast<int64_t>(i));
  return from_table(Table::from_columns({{"i", Column::from(rows)}, {"url", Column::from(urls)}}),
                    parts);
}

/// tests/storage/counting_file_server.py serving `dir`: url(name), and count() of the files
/// it has sent.
class FileServer {
 public:
  explicit FileServer(const std::string& dir)
      : process_({"/usr/bin/python3",
                  std::string(EMBER_STORAGE_TEST_DIR) + "/counting_file_server.py", dir},
                 true) {}
  std::string url(const std::string& name) const {
    return "http://127.0.0.1:" + process_.first_line() + "/" + name;
  }
  int64_t count() const { return std::stoll(http_get(url("count"))); }
  /// Requests for stall/NAME so far (each sent a few bytes, then nothing).
  int64_t stalled() const { return std::stoll(http_get(url("stalled"))); }

 private:
  ChildProcess process_;
};

/// Checks column "img" of `t` row by row against `expected` (nullopt: a null).
void expect_files(const Table& t, const std::vector<std::optional<std::string>>& expected) {
  ASSERT_EQ(t.num_rows(), static_cast<int64_t>(expected.size()));
  const Column img = t.column("img"), ids = t.column("i");
  ASSERT_EQ(img.type(), binary());
  int64_t wrong = 0;
  for (int64_t r = 0; r < t.num_rows(); ++r) {
    const auto i = static_cast<size_t>(std::get<int64_t>(ids.get(r)));
    ASSERT_EQ(static_cast<int64_t>(i), r) << "rows keep their order";
    const bool ok =
        expected[i] ? !img.is_null(r) && img.value<std::string>(r) == *expected[i] : img.is_null(r);
    if (!ok && wrong++ == 0) ADD_FAILURE() << "row " << r << " differs";
  }
  EXPECT_EQ(wrong, 0);
}

/// A stateful UDF reading the downloaded bytes: each file's size.
struct ByteCount {
  explicit ByteCount(const InitArgs&) {}
  Column operator()(const Batch& in) const {
    std::vector<int64_t> out;
    for (int64_t r = 0; r < in.num_rows(); ++r)
      out.push_back(static_cast<int64_t>(in.column(0).value<std::string_view>(r).size()));
    return Column::from(out);
  }
};

DownloadOptions null_on_error(int connections = 32) {
  DownloadOptions o;
  o.max_connections = connections;
  o.on_error = OnError::Null;
  return o;
}

}  // namespace

TEST(UrlDownload, AThousandHttpFilesInRowOrderMissingOnesNullUnderNull) {
  const ScratchDir dir;
  write_files(dir.path(), 1000);
  const FileServer http(dir.path());
  std::vector<std::optional<std::string>> urls, expected;
  std::vector<std::string> missing;
  for (int i = 0; i < 1000; ++i) {
    if (i % 97 == 5) {  // a null URL gives a null
      urls.push_back(std::nullopt);
      expected.push_back(std::nullopt);
    } else if (i % 50 == 7) {  // no such file: null under Null, and a row of rejected
      urls.push_back(http.url("missing" + std::to_string(i)));
      missing.push_back(*urls.back());
      expected.push_back(std::nullopt);
    } else {
      urls.push_back(http.url("f" + std::to_string(i)));
      expected.push_back(file_bytes(i));
    }
  }
  for (const int connections : {1, 8, 32}) {
    const QueryResult r =
        url_table(urls, 4)
            .with_column("img", col("url").url_download(null_on_error(connections)))
            .execute();
    expect_files(r.table, expected);
    // Each missing file is a row of rejected, in input order, with its URL and why.
    ASSERT_EQ(r.rejected.num_rows(), static_cast<int64_t>(missing.size())) << connections;
    ASSERT_EQ(r.rejected.schema().num_fields(), 3);
    EXPECT_EQ(r.rejected.schema().field(2).name, "url");
    const Column udf = r.rejected.column("udf");
    const Column error = r.rejected.column("error");
    const Column url = r.rejected.column("url");
    for (int64_t k = 0; k < r.rejected.num_rows(); ++k) {
      EXPECT_EQ(udf.value<std::string>(k), "url_download(url)");
      EXPECT_EQ(url.value<std::string>(k), missing[static_cast<size_t>(k)]);
      EXPECT_NE(error.value<std::string>(k).find("404"), std::string::npos)
          << error.value<std::string>(k);
    }
  }
}

TEST(UrlDownload, AMissingFileFailsTheQueryUnderRaiseNamingItsUrl) {
  const ScratchDir dir;
  write_files(dir.path(), 300);
  const FileServer http(dir.path());
  std::vector<std::optional<std::string>> urls;
  for (int i = 0; i < 300; ++i) urls.push_back(http.url("f" + std::to_string(i)));
  const std::string missing = http.url("no-such-file");
  urls[211] = missing;
  const DataFrame q = url_table(urls, 3).with_column("img", col("url").url_download());
  const std::string msg = error_of<IoError>([&] { q.collect(); });
  EXPECT_NE(msg.find("url_download of url"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'" + missing + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("404"), std::string::npos) << msg;
}

TEST(UrlDownload, ACancelledQueryAbandonsItsStalledDownloadsInsteadOfWaitingForThem) {
  // Each download stalls mid-body: only the 60 s stall timeout would end it. Cancelling the
  // query must end them (and it) within about a second of the cancel, not after that timeout.
  const ScratchDir dir;
  const FileServer http(dir.path());
  std::vector<std::optional<std::string>> urls;
  for (int i = 0; i < 8; ++i) urls.push_back(http.url("stall/f" + std::to_string(i)));
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  RunOptions options;
  options.cancel = cancel;
  std::thread canceller([&] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (http.stalled() < 8 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    cancel->store(true);
  });
  const auto started = std::chrono::steady_clock::now();
  std::string msg;
  try {
    url_table(urls, 2).with_column("img", col("url").url_download()).execute(options);
  } catch (const Error& e) {
    msg = e.what();
  }
  canceller.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_NE(msg.find("cancelled"), std::string::npos) << msg;
  EXPECT_GE(http.stalled(), 8);  // every download had started and stalled before the cancel
  EXPECT_LT(seconds, 40.0) << "the query waited for the stall timeout";
}

TEST(UrlDownload, LocalPathsAndFileUrlsAndTheirErrors) {
  const ScratchDir dir;
  write_files(dir.path(), 20);
  std::vector<std::optional<std::string>> urls, expected;
  for (int i = 0; i < 20; ++i) {
    const std::string path = dir.path() + "/f" + std::to_string(i);
    urls.push_back(i % 2 ? "file://" + path : path);
    expected.push_back(file_bytes(i));
  }
  urls.push_back(dir.path() + "/absent");
  expected.push_back(std::nullopt);
  urls.push_back(dir.path());  // a directory is not a file
  expected.push_back(std::nullopt);
  expect_files(
      url_table(urls, 2).with_column("img", col("url").url_download(null_on_error())).collect(),
      expected);
  const std::string msg = error_of<IoError>(
      [&] { url_table(urls, 2).with_column("img", col("url").url_download()).collect(); });
  EXPECT_NE(msg.find(dir.path() + "/absent"), std::string::npos) << msg;
  EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
}

TEST(UrlDownload, S3ObjectsWithRetriedThrottlingAndAMissingKey) {
  EMBER_REQUIRE_S3(s3);
  const StorageOptions o = s3.options();
  // url_download takes s3:// credentials from the environment, as the AWS tools do.
  const ScopedEnv endpoint("AWS_ENDPOINT_URL", o.endpoint_url),
      key("AWS_ACCESS_KEY_ID", o.access_key_id),
      secret("AWS_SECRET_ACCESS_KEY", o.secret_access_key), region("AWS_REGION", "us-east-1");
  std::vector<std::optional<std::string>> urls, expected;
  for (int i = 0; i < 200; ++i) {
    const std::string k = "dl/o" + std::to_string(i);
    if (i != 123) s3.put("data", k, file_bytes(i));
    urls.push_back("s3://data/" + k);
    expected.push_back(i == 123 ? std::nullopt : std::optional<std::string>(file_bytes(i)));
  }
  s3.control("slowdown=5&reset=2");  // throttled and dropped requests are sent again
  expect_files(
      url_table(urls, 3).with_column("img", col("url").url_download(null_on_error(16))).collect(),
      expected);
  const std::string msg = error_of<IoError>(
      [&] { url_table(urls, 3).with_column("img", col("url").url_download()).collect(); });
  EXPECT_NE(msg.find("'s3://data/dl/o123'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("NoSuchKey"), std::string::npos) << msg;
}

TEST(UrlDownload, AUdfReadsTheBytesInTheSameQueryAndExplainShowsTheStage) {
  const ScratchDir dir;
  write_files(dir.path(), 200);
  std::vector<std::optional<std::string>> urls;
  for (int i = 0; i < 200; ++i) urls.push_back(dir.path() + "/f" + std::to_string(i));
  const Udf size = Udf::cls<ByteCount>("byte_count").returns(int64()).batch_size(16).concurrency(2);
  const DataFrame q = url_table(urls, 2)
                          .with_column("img", col("url").url_download())
                          .with_column("n", size(col("img")))
                          .where(col("n") > 100);
  const std::string plan = q.explain();
  EXPECT_NE(plan.find("UrlDownload"), std::string::npos) << plan;
  EXPECT_NE(plan.find("url_download(max_connections=32)"), std::string::npos) << plan;
  const Table t = q.collect();
  int64_t expected = 0;
  for (int i = 0; i < 200; ++i) expected += file_bytes(i).size() > 100;
  ASSERT_EQ(t.num_rows(), expected);
  for (int64_t r = 0; r < t.num_rows(); ++r) {
    const auto i = static_cast<int>(std::get<int64_t>(t.column("i").get(r)));
    EXPECT_EQ(std::get<int64_t>(t.column("n").get(r)), static_cast<int64_t>(file_bytes(i).size()));
  }
}

/// A stateful UDF that, on its first call, waits a while and notes how many files the server
/// has sent by then (statics: one query at a time uses it).
struct SlowFirstCall {
  static inline const FileServer* server = nullptr;
  static inline std::atomic<int64_t> served_at_first_call{-1};
  explicit SlowFirstCall(const InitArgs&) {}
  Column operator()(const Batch& in) {
    if (served_at_first_call.load() < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      served_at_first_call = server->count();
    }
    return Column::from(std::vector<int64_t>(static_cast<size_t>(in.num_rows()), 1));
  }
};

TEST(UrlDownload, ABigInputBatchIsDownloadedAsTheStageAboveTakesItNotAllAtOnce) {
  const ScratchDir dir;
  write_files(dir.path(), 800);
  const FileServer http(dir.path());
  SlowFirstCall::server = &http;
  SlowFirstCall::served_at_first_call = -1;
  std::vector<std::optional<std::string>> urls;
  for (int i = 0; i < 800; ++i) urls.push_back(http.url("f" + std::to_string(i)));
  const Udf slow = Udf::cls<SlowFirstCall>("slow_first_call").returns(int64()).batch_size(16);
  // One partition: the table comes as one batch of 800 URLs.
  const Table t = url_table(urls, 1)
                      .with_column("img", col("url").url_download())
                      .with_column("one", slow(col("img")))
                      .collect();
  ASSERT_EQ(t.num_rows(), 800);
  EXPECT_EQ(http.count(), 800);
  // While the UDF sat on its first batch the download stage held at most 4 chunks of 32 files
  // and the pool its window of chunks (4 of 16 rows), not the 800 files of the batch.
  EXPECT_GT(SlowFirstCall::served_at_first_call.load(), 0);
  EXPECT_LE(SlowFirstCall::served_at_first_call.load(), 300);
}

TEST(UrlDownload, OptionsAndTypesAreChecked) {
  DownloadOptions none;
  none.max_connections = 0;
  EXPECT_NE(error_of<InvalidArgument>([&] { col("u").url_download(none); }).find("at least 1"),
            std::string::npos);
  DownloadOptions skip;
  skip.on_error = OnError::Skip;
  EXPECT_NE(error_of<InvalidArgument>([&] { col("u").url_download(skip); }).find("Raise"),
            std::string::npos);
  const std::string msg = error_of<TypeError>(
      [&] { range(3, 1).with_column("img", col("id").url_download()).collect(); });
  EXPECT_NE(msg.find("utf8"), std::string::npos) << msg;
}
