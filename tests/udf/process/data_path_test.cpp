// Batches through shared memory: exact and ordered results over many batches (through an
// ActorPool), every column type and slice, 64 MiB batches, results and retained inputs that
// stay immutable, and worker output relayed without stalling anyone.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>

#include "test_udfs.h"
#include "udf/actor.h"
#include "udf/actor_pool.h"
#include "worker_test_kit.h"

namespace ember::test {
namespace {

void expect_same_column(const Column& got, const Column& want) {
  ASSERT_EQ(got.type(), want.type());
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(got.null_count(), want.null_count());
  for (int64_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got.get(i), want.get(i)) << "row " << i;
  }
}

TEST(ProcessData, ManyBatchesThroughAPoolAreExactAndInOrder) {
  auto spec = process_spec<AddOne>("add", "AddOne", int64());
  ActorPool pool(spec, {actor_context(0), actor_context(1)});
  pool.start();
  constexpr int kBatches = 200;
  std::vector<std::vector<std::optional<int64_t>>> inputs(kBatches);
  for (int b = 0; b < kBatches; ++b) {
    for (int r = 0; r < 1 + (b * 37) % 300; ++r) {
      inputs[b].push_back(r % 7 == 3 ? std::nullopt : std::optional<int64_t>(b * 1000 + r));
    }
  }
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::optional<CallResult>> results(kBatches);
  int done = 0;
  for (int b = 0; b < kBatches; ++b) {
    pool.dispatch(Batch(Schema({{"x", int64()}}), {Column::from(inputs[b])}), [&, b](CallResult r) {
      std::lock_guard lock(m);
      results[b] = std::move(r);
      ++done;
      cv.notify_all();
    });
  }
  {
    std::unique_lock lock(m);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(90), [&] { return done == kBatches; }));
  }
  for (int b = 0; b < kBatches; ++b) {
    ASSERT_TRUE(std::holds_alternative<Column>(*results[b])) << "batch " << b;
    const Column& out = std::get<Column>(*results[b]);
    ASSERT_EQ(out.size(), static_cast<int64_t>(inputs[b].size()));
    for (size_t r = 0; r < inputs[b].size(); ++r) {
      const auto& want = inputs[b][r];
      if (!want) {
        EXPECT_TRUE(out.is_null(static_cast<int64_t>(r)));
      } else {
        EXPECT_EQ(out.value<int64_t>(static_cast<int64_t>(r)), *want + 1);
      }
    }
  }
  EXPECT_EQ(pool.stats().inits, 2);
  pool.stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessData, EveryColumnTypeAndSliceCrossesIntact) {
  std::vector<std::optional<std::string>> words;
  std::vector<std::optional<bool>> flags;
  std::vector<std::optional<double>> reals;
  std::vector<std::optional<int64_t>> ints;
  for (int i = 0; i < 203; ++i) {
    const bool null = i % 5 == 2;
    words.push_back(null ? std::nullopt
                         : std::optional<std::string>(std::string(i % 13, 'a' + i % 26)));
    flags.push_back(null ? std::nullopt : std::optional<bool>(i % 3 == 0));
    reals.push_back(null ? std::nullopt : std::optional<double>(i * 0.25 - 7));
    ints.push_back(null ? std::nullopt : std::optional<int64_t>(int64_t{1} << (i % 62)));
  }
  const std::vector<Column> columns = {Column::from(words),
                                       Column::from(flags),
                                       Column::from(reals),
                                       Column::from(ints),
                                       Column::nulls(DataType(), 203),
                                       Column::from(std::vector<std::string>{"", "", ""})};
  // Echo hands its argument back (nothing is copied back); Reassemble returns a fresh copy, which
  // crosses back through the worker's region.
  auto echo = make_process_actor(process_spec<Echo>("echo", "Echo", int64()), actor_context(0));
  auto copy =
      make_process_actor(process_spec<Reassemble>("copy", "Reassemble", int64()), actor_context(1));
  echo->start();
  copy->start();
  for (const Column& c : columns) {
    for (auto [offset, length] : {std::pair<int64_t, int64_t>{0, c.size()},
                                  {3, c.size() - 3},
                                  {13, std::min<int64_t>(50, c.size() - 13)},
                                  {1, 0}}) {
      if (length < 0) continue;
      const Column piece = c.slice(std::min(offset, c.size()), length);
      const Batch batch(Schema({{"c", piece.type()}}), {piece});
      SCOPED_TRACE(c.type().to_string() + " slice " + std::to_string(offset));
      expect_same_column(echo->call(batch), piece);
      expect_same_column(copy->call(batch), piece);
    }
  }
  echo->stop();
  copy->stop();
}

TEST(ProcessData, A64MiBBatchRoundTripsAndResultsStayImmutable) {
  constexpr int64_t kRows = (int64_t{64} << 20) / 8;
  std::vector<int64_t> a(kRows), b(kRows);
  for (int64_t i = 0; i < kRows; ++i) {
    a[static_cast<size_t>(i)] = i * 3;
    b[static_cast<size_t>(i)] = -i;
  }
  auto negate =
      make_process_actor(process_spec<Negate>("negate", "Negate", int64()), actor_context(0));
  negate->start();
  // The first result is still held while the second batch runs: it must not change.
  const Column first = negate->call(int_batch(a));
  const Column second = negate->call(int_batch(b));
  ASSERT_EQ(first.size(), kRows);
  ASSERT_EQ(second.size(), kRows);
  for (int64_t i = 0; i < kRows; ++i) {
    ASSERT_EQ(first.values<int64_t>()[i], -a[static_cast<size_t>(i)]) << i;
    ASSERT_EQ(second.values<int64_t>()[i], -b[static_cast<size_t>(i)]) << i;
  }
  negate->stop();
  EXPECT_EQ(first.values<int64_t>()[kRows - 1], -a.back()) << "a result outlives its actor";

  auto echo = make_process_actor(process_spec<Echo>("echo", "Echo", int64()), actor_context(1));
  echo->start();
  const Column same = echo->call(int_batch(a));
  ASSERT_EQ(same.size(), kRows);
  EXPECT_EQ(std::memcmp(same.values<int64_t>(), a.data(), a.size() * 8), 0);
  echo->stop();
}

TEST(ProcessData, AnArgumentHandedBackIsTheDriversOwnColumn) {
  std::vector<std::optional<std::string>> words;
  // GCC 12 at -O3 reports a false -Wrestrict inside std::string's inlined insert for
  // "literal" + std::string (GCC bug 105651).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
  for (int i = 0; i < 50; ++i)
    words.push_back(i % 4 ? std::optional<std::string>("w" + std::to_string(i)) : std::nullopt);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  const Column text = Column::from(words).slice(9, 30);
  const Column ids = Column::from(std::vector<int64_t>(40, 5)).slice(2, 30);
  auto actor =
      make_process_actor(process_spec<PickSecond>("pick", "PickSecond", utf8()), actor_context(0));
  actor->start();
  const Column out = actor->call(Batch(Schema({{"id", int64()}, {"text", utf8()}}), {ids, text}));
  expect_same_column(out, text);
  EXPECT_EQ(out.values_buffer(), text.values_buffer()) << "no copy back for a pass-through";
  actor->stop();
}

TEST(ProcessData, SmallResultsStayImmutableAcrossCalls) {
  auto actor = make_process_actor(process_spec<AddOne>("add", "AddOne", int64()), actor_context(0));
  actor->start();
  std::vector<Column> kept;
  for (int64_t k = 0; k < 20; ++k) kept.push_back(actor->call(int_batch({k, k * 10, k * 100})));
  for (int64_t k = 0; k < 20; ++k) {
    EXPECT_EQ(kept[k].value<int64_t>(0), k + 1);
    EXPECT_EQ(kept[k].value<int64_t>(2), k * 100 + 1);
  }
  actor->stop();
}

TEST(ProcessData, AUdfThatKeepsItsInputsSeesThemUnchanged) {
  auto actor =
      make_process_actor(process_spec<Hoarder>("hoard", "Hoarder", int64()), actor_context(0));
  actor->start();
  std::vector<std::vector<int64_t>> batches;
  for (int64_t k = 0; k < 6; ++k) {
    std::vector<int64_t> v;
    for (int64_t r = 0; r < 4 + k; ++r) v.push_back(k * 100 + r);
    batches.push_back(v);
  }
  for (size_t k = 0; k < batches.size(); ++k) {
    const Column out = actor->call(int_batch(batches[k]));
    const auto& prev = batches[k == 0 ? 0 : k - 1];
    ASSERT_EQ(out.size(), static_cast<int64_t>(batches[k].size()));
    for (size_t r = 0; r < batches[k].size(); ++r) {
      EXPECT_EQ(out.value<int64_t>(static_cast<int64_t>(r)), prev[r % prev.size()])
          << k << "/" << r;
    }
  }
  actor->stop();
}

TEST(ProcessData, ABatchWithoutColumnsKeepsItsRowCount) {
  auto actor = make_process_actor(
      process_spec<Probe>("probe", "Probe", utf8(), {{"report", "ctx_actor"}}), actor_context(4));
  actor->start();
  const Column out = actor->call(Batch::empty_with_rows(7));
  ASSERT_EQ(out.size(), 7);
  EXPECT_EQ(out.value<std::string_view>(6), "4");
  actor->stop();
}

/// Points this process's stderr at a file for the scope's lifetime.
class StderrCapture {
 public:
  explicit StderrCapture(const std::string& path) {
    saved_ = ::dup(2);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ::dup2(fd, 2);
    ::close(fd);
  }
  ~StderrCapture() {
    ::dup2(saved_, 2);
    ::close(saved_);
  }

 private:
  int saved_;
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size()))
    ++n;
  return n;
}

TEST(ProcessData, AChattyWorkerIsRelayedLineByLineWithoutStalling) {
  TempDir dir;
  constexpr int64_t kLines = 40000, kBlob = 3 << 20;
  {
    StderrCapture capture(dir.file("stderr"));
    auto actor = make_process_actor(
        process_spec<Chatty>("chatty", "Chatty", int64(), {{"lines", kLines}, {"blob", kBlob}}),
        actor_context(0));
    actor->start();
    for (int round = 0; round < 2; ++round)
      EXPECT_EQ(actor->call(int_batch({round})).value<int64_t>(0), round + 1);
    actor->stop();
  }
  const std::string text = read_file(dir.file("stderr"));
  const std::string prefix = "[chatty #0] ";
  size_t lines = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    ASSERT_NE(end, std::string::npos) << "every relayed piece ends with a newline";
    const std::string line = text.substr(start, end - start);
    ASSERT_EQ(line.rfind(prefix, 0), 0u) << line.substr(0, 80);
    EXPECT_LE(line.size(), prefix.size() + (64 << 10));
    ++lines;
    start = end + 1;
  }
  EXPECT_EQ(count(text, " of chatter"), static_cast<size_t>(2 * kLines));
  EXPECT_EQ(count(text, "tail-without-newline"), 2u);
  // Only the stderr blobs contain a 'b' (the prefix and the stdout lines do not).
  EXPECT_EQ(static_cast<int64_t>(std::count(text.begin(), text.end(), 'b')), 2 * kBlob);
  EXPECT_GE(lines, static_cast<size_t>(2 * kLines + 2 * kBlob / (64 << 10)));
}

}  // namespace
}  // namespace ember::test
