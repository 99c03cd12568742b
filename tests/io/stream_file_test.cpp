// Reading pipes and devices (non-regular files): one stream partition, the sampled bytes read
// again by the partition's reader, and a bounded record length. Every read runs in a child
// process that an alarm kills, so a read that hangs or grows without bound fails the test
// instead of stalling the suite or the machine.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

#include "ember/error.h"
#include "io/scan_reading.h"
#include "io/temp_dir.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define EMBER_TEST_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define EMBER_TEST_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define EMBER_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMBER_TEST_TSAN 1
#endif
#endif

namespace ember {
namespace {

using testing_io::read_csv_table;
using testing_io::read_jsonl_table;
using testing_io::TempDir;

constexpr int kDeadlineSeconds = 30;
// Growth of the peak resident memory a read may cause (AddressSanitizer's quarantine of freed
// blocks included); an unbounded read passes it within a second or two.
#ifdef EMBER_TEST_TSAN
// ThreadSanitizer's shadow memory counts in the resident size too: four times the application's.
constexpr long kMemoryGrowthKiB = 4 * (768L << 10);
#else
constexpr long kMemoryGrowthKiB = 768L << 10;
#endif

/// The child's side of expect_in_child: runs `body` under a deadline and exits 0 when it
/// reports no problem and grew its peak memory by less than kMemoryGrowthKiB.
[[noreturn]] void run_in_child(const std::function<std::string()>& body) {
  ::alarm(kDeadlineSeconds);
#ifndef EMBER_TEST_SANITIZER
  // A runaway read must not take the machine down with it (ASan and TSan reserve terabytes of
  // address space, so the limit is left out under them).
  const rlimit as{rlim_t{4} << 30, rlim_t{4} << 30};
  ::setrlimit(RLIMIT_AS, &as);
#endif
  // The child starts with the parent's pages resident: measure what the body adds.
  rusage before{};
  ::getrusage(RUSAGE_SELF, &before);
  std::string problem;
  try {
    problem = body();
  } catch (const std::exception& e) {
    problem = std::string("unexpected exception: ") + e.what();
  }
  rusage after{};
  ::getrusage(RUSAGE_SELF, &after);
  const long growth = after.ru_maxrss - before.ru_maxrss;
  if (problem.empty() && growth > kMemoryGrowthKiB) {
    problem = "peak memory grew by " + std::to_string(growth >> 10) + " MiB";
  }
  std::fprintf(stderr, "%s\n", problem.c_str());
  std::fflush(stderr);
  ::_exit(problem.empty() ? 0 : 1);
}

/// Runs `body` in a child process killed after kDeadlineSeconds. `body` returns "" when all
/// went well, else what went wrong (shown in the failure).
void expect_in_child(const std::function<std::string()>& body) {
  EXPECT_EXIT(run_in_child(body), ::testing::ExitedWithCode(0), "");
}

/// A FIFO in `dir` and a thread that writes `content` into it once a reader opens it.
class FifoWriter {
 public:
  FifoWriter(const TempDir& dir, std::string content)
      : path_(dir.file("in.fifo")), content_(std::move(content)) {
    if (::mkfifo(path_.c_str(), 0600) != 0) std::abort();
    std::signal(SIGPIPE, SIG_IGN);  // a reader that stops early must not kill the writer
    thread_ = std::thread([this] {
      const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) return;
      size_t done = 0;
      while (done < content_.size()) {
        // Small writes, so that the reader sees the stream arrive in pieces.
        const size_t n = std::min<size_t>(content_.size() - done, 10000);
        const ssize_t w = ::write(fd, content_.data() + done, n);
        if (w <= 0) break;
        done += size_t(w);
      }
      ::close(fd);
    });
  }
  ~FifoWriter() { thread_.join(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string content_;
  std::thread thread_;
};

std::string csv_rows(int rows) {
  std::string out = "id,word,x\n";
  for (int i = 0; i < rows; ++i) {
    out += std::to_string(i) + ",w" + std::to_string(i % 10) + "," + std::to_string(i) + ".5\n";
  }
  return out;
}

std::string check_csv_rows(const Table& t, int rows) {
  if (t.num_rows() != rows) return "got " + std::to_string(t.num_rows()) + " rows";
  if (!(t.schema() == Schema({{"id", int64()}, {"word", utf8()}, {"x", float64()}}))) {
    return "schema " + t.schema().to_string();
  }
  const Column id = t.column("id");
  for (int64_t i = 0; i < rows; ++i) {
    if (id.value<int64_t>(i) != i) return "wrong id at row " + std::to_string(i);
  }
  return "";
}

TEST(StreamFiles, CsvFromAFifoGivesEveryRowOnce) {
  expect_in_child([] {
    TempDir dir;
    const int rows = 200000;  // a few MB: more than the sample, a read chunk and a pipe buffer
    FifoWriter fifo(dir, csv_rows(rows));
    CsvOptions options;
    options.split_bytes = 1024;  // a stream is never split, whatever this says
    const CsvScan scan = plan_csv_scan(fifo.path(), options);
    if (scan.splits.size() != 1) return std::string("a stream was split");
    std::vector<Batch> batches;
    testing_io::drain(*open_csv_split(scan.splits[0], scan.schema, options, 4096), 4096, batches);
    return check_csv_rows(Table(scan.schema, std::move(batches)), rows);
  });
}

TEST(StreamFiles, CsvFromAFifoReadsTheSampledRowsAgain) {
  expect_in_child([] {
    TempDir dir;
    const int rows = 3000;
    FifoWriter fifo(dir, csv_rows(rows));
    const CsvScan scan = plan_csv_scan(fifo.path(), {});
    auto reader = open_csv_split(scan.splits.at(0), scan.schema, {}, 1000);
    std::vector<Batch> batches;
    testing_io::drain(*reader, 1000, batches);
    return check_csv_rows(Table(scan.schema, std::move(batches)), rows);
  });
}

TEST(StreamFiles, CsvStreamCanBeReadOnlyOnce) {
  expect_in_child([] {
    TempDir dir;
    FifoWriter fifo(dir, csv_rows(10));
    const CsvScan scan = plan_csv_scan(fifo.path(), {});
    std::vector<Batch> batches;
    testing_io::drain(*open_csv_split(scan.splits.at(0), scan.schema, {}, 100), 100, batches);
    const std::string msg = testing_io::error_of<IoError>(
        [&] { open_csv_split(scan.splits.at(0), scan.schema, {}, 100)->next(); });
    if (msg.find("once") == std::string::npos) return "second read: '" + msg + "'";
    return std::string();
  });
}

TEST(StreamFiles, CsvErrorInAFifoNamesTheTrueLine) {
  expect_in_child([] {
    TempDir dir;
    std::string content = csv_rows(5000);
    content += "oops,w,1.5\n";  // line 5002
    FifoWriter fifo(dir, content);
    const std::string msg = testing_io::error_of<ParseError>([&] { read_csv_table(fifo.path()); });
    if (msg.rfind(fifo.path() + ":5002:1:", 0) != 0) return "error: '" + msg + "'";
    return std::string();
  });
}

TEST(StreamFiles, JsonlFromAFifoGivesEveryRowOnce) {
  expect_in_child([] {
    TempDir dir;
    std::string content;
    const int rows = 100000;
    for (int i = 0; i < rows; ++i) content += "{\"id\": " + std::to_string(i) + "}\n";
    FifoWriter fifo(dir, content);
    const Table t = read_jsonl_table(fifo.path(), 1024);
    if (t.num_rows() != rows) return "got " + std::to_string(t.num_rows()) + " rows";
    const Column id = t.column("id");
    for (int64_t i = 0; i < rows; ++i) {
      if (id.value<int64_t>(i) != i) return "wrong id at row " + std::to_string(i);
    }
    return std::string();
  });
}

TEST(StreamFiles, EndlessDeviceIsAnErrorWithinBoundedMemory) {
  expect_in_child([] {
    for (const bool csv : {true, false}) {
      const std::string msg = testing_io::error_of<ParseError>([&] {
        if (csv) {
          read_csv_table("/dev/zero");
        } else {
          read_jsonl_table("/dev/zero");
        }
      });
      if (msg.rfind("/dev/zero:1:", 0) != 0 || msg.find("64 MiB") == std::string::npos) {
        return "error: '" + msg + "'";
      }
    }
    return std::string();
  });
}

TEST(StreamFiles, EmptyDeviceIsAnEmptyFile) {
  expect_in_child([] {
    const std::string msg = testing_io::error_of<ParseError>([] { read_csv_table("/dev/null"); });
    if (msg.find("empty file") == std::string::npos) return "error: '" + msg + "'";
    return std::string();
  });
}

}  // namespace
}  // namespace ember
