// Results a worker builds straight in its shared result region, the regions reused from batch
// to batch, and the short spin that precedes each blocking wait: results stay exact and
// immutable over many batches of changing sizes, descriptors and mappings do not accumulate,
// a death during the spin is still noticed at once, and an idle worker uses no CPU.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "one_actor_pool.h"
#include "test_udfs.h"
#include "udf/actor.h"
#include "worker_test_kit.h"

namespace ember::test {
namespace {

std::vector<int64_t> ramp(int64_t n, int64_t from) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = from + i * 7;
  return v;
}

/// Mappings of ember's shared regions in this process (lines of /proc/self/maps).
int region_mappings() {
  std::ifstream maps("/proc/self/maps");
  int n = 0;
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/memfd:ember") != std::string::npos) ++n;
  }
  return n;
}

/// Row counts that cross the arena threshold, outgrow the region, and shrink again.
const std::vector<int64_t> kSizes = {3,      9000, 200000,  100,  600000, 70000, 1,
                                     400000, 16,   1100000, 8191, 250000, 5};

TEST(ProcessResultRegion, ResultsOfChangingSizesAreExactAndStayImmutable) {
  auto negate =
      make_process_actor(process_spec<Negate>("negate", "Negate", int64()), actor_context(0));
  auto add = make_process_actor(process_spec<AddOne>("add", "AddOne", int64()), actor_context(1));
  negate->start();
  add->start();
  std::vector<std::pair<std::vector<int64_t>, Column>> kept_negated, kept_added;
  for (int round = 0; round < 2; ++round) {
    for (size_t k = 0; k < kSizes.size(); ++k) {
      auto in = ramp(kSizes[k], static_cast<int64_t>(round * 100000 + k));
      Column neg = negate->call(int_batch(in));
      Column plus = add->call(int_batch(in));
      // Every other result is held to the end (the worker must write around it), the others
      // are dropped at once (their region is reused).
      ASSERT_EQ(neg.size(), kSizes[k]);
      ASSERT_EQ(plus.size(), kSizes[k]);
      for (int64_t i = 0; i < kSizes[k]; i += 1 + kSizes[k] / 1000) {
        ASSERT_EQ(neg.values<int64_t>()[i], -in[static_cast<size_t>(i)]) << k << "/" << i;
        ASSERT_EQ(plus.value<int64_t>(i), in[static_cast<size_t>(i)] + 1) << k << "/" << i;
      }
      if (k % 2 == 0) {
        kept_negated.emplace_back(in, neg);
        kept_added.emplace_back(std::move(in), plus);
      }
    }
  }
  for (size_t j = 0; j < kept_negated.size(); ++j) {
    const auto& [in, neg] = kept_negated[j];
    const Column& plus = kept_added[j].second;
    for (size_t i = 0; i < in.size(); ++i) {
      ASSERT_EQ(neg.values<int64_t>()[i], -in[i]) << "held result " << j << " row " << i;
      ASSERT_EQ(plus.value<int64_t>(static_cast<int64_t>(i)), in[i] + 1) << j << "/" << i;
      ASSERT_FALSE(plus.is_null(static_cast<int64_t>(i)));
    }
  }
  negate->stop();
  add->stop();
}

TEST(ProcessResultRegion, LargeResultsAreBuiltInSharedMemoryAndCrossWithoutACopy) {
  auto actor = make_process_actor(
      process_spec<NegateReportingPlace>("place", "NegateReportingPlace", int64()),
      actor_context(0));
  actor->start();
  constexpr int64_t kRows = 1 << 20;  // 8 MiB: larger than a new worker's first region
  std::vector<int64_t> built_in_region;
  std::vector<Column> held;
  for (int k = 0; k < 4; ++k) {
    const auto in = ramp(kRows, k);
    Column out = actor->call(int_batch(in));
    ASSERT_EQ(out.size(), kRows);
    for (int64_t i = 1; i < kRows; ++i)
      ASSERT_EQ(out.values<int64_t>()[i], -in[static_cast<size_t>(i)]);
    built_in_region.push_back(out.values<int64_t>()[0]);
    // The driver reads the very bytes the worker wrote: a view of the worker's region.
    EXPECT_TRUE(in_mapping_named(out.values<int64_t>(), "memfd:ember-result"));
    if (k == 2) held.push_back(out);  // the next result must go around it
  }
  // The first result finds the region too small and is copied in; from then on results are
  // built in place, including while an earlier one is still held.
  EXPECT_EQ(built_in_region, (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(held[0].values<int64_t>()[5], -(2 + 5 * 7));
  const Column small = actor->call(int_batch({4, 5}));
  EXPECT_EQ(small.value<int64_t>(0), 0) << "small buffers come from the heap";
  EXPECT_EQ(small.value<int64_t>(1), -5);
  actor->stop();
}

TEST(ProcessResultRegion, AScratchColumnDoesNotKeepTheResultOutOfTheRegion) {
  auto actor =
      make_process_actor(process_spec<NegateReportingPlace>("place", "NegateReportingPlace",
                                                            int64(), {{"scratch", int64_t{1}}}),
                         actor_context(0));
  actor->start();
  constexpr int64_t kRows = 1 << 19;
  std::vector<int64_t> built_in_region;
  for (int k = 0; k < 4; ++k) {
    const auto in = ramp(kRows, k);
    const Column out = actor->call(int_batch(in));
    ASSERT_EQ(out.size(), kRows);
    for (int64_t i = 1; i < kRows; ++i)
      ASSERT_EQ(out.values<int64_t>()[i], -in[static_cast<size_t>(i)]);
    built_in_region.push_back(out.values<int64_t>()[0]);
  }
  // Call 1: the region is too small for either column. Call 2: the scratch column fills it and
  // the result is copied into a region grown for both. From then on: in place.
  EXPECT_EQ(built_in_region[2], 1);
  EXPECT_EQ(built_in_region[3], 1);
  actor->stop();
}

TEST(ProcessResultRegion, DescriptorsAndMappingsDoNotAccumulate) {
  const int fds_before = memfd_count();
  const int maps_before = region_mappings();
  auto actor = make_process_actor(
      process_spec<NegateCountingMemfds>("count", "NegateCountingMemfds", int64()),
      actor_context(0));
  actor->start();
  int64_t worker_fds_first = -1;
  for (int round = 0; round < 2; ++round) {
    for (int64_t rows : kSizes) {
      const auto in = ramp(rows, 1);
      const Column out = actor->call(int_batch(in));
      ASSERT_EQ(out.size(), rows);
      if (rows > 1) {
        ASSERT_EQ(out.values<int64_t>()[rows - 1], -in.back());
      }
      const int64_t worker_fds = out.values<int64_t>()[0];
      if (worker_fds_first < 0) worker_fds_first = worker_fds;
      // The worker holds its result region and its mapping of the argument region: a small,
      // fixed number of memfds whatever the batch count.
      EXPECT_LE(worker_fds, 2) << "round " << round << ", " << rows << " rows";
      // The driver holds the argument region's memfd only; results map without keeping one.
      EXPECT_LE(memfd_count(), fds_before + 1);
      EXPECT_LE(region_mappings(), maps_before + 2);  // argument region + result region
    }
  }
  actor->stop();
  EXPECT_EQ(memfd_count(), fds_before);
  EXPECT_EQ(region_mappings(), maps_before);
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessResultRegion, AUdfThatKeepsAResultItBuiltSeesItUnchanged) {
  auto actor = make_process_actor(process_spec<Lagger>("lag", "Lagger", int64()), actor_context(0));
  actor->start();
  constexpr int64_t kRows = 300000;  // built in the region, not on the heap
  std::vector<std::vector<int64_t>> inputs;
  std::vector<Column> results;
  for (int64_t k = 0; k < 8; ++k) {
    inputs.push_back(ramp(kRows, k * 1000003));
    results.push_back(actor->call(int_batch(inputs.back())));
    if (k % 3 == 1) results.back() = Column();  // drop some, so that regions get reused
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (k % 3 == 1) continue;
    const auto& want = inputs[k == 0 ? 0 : k - 1];  // the column built on the previous call
    ASSERT_EQ(results[k].size(), kRows);
    for (int64_t i = 0; i < kRows; ++i) {
      ASSERT_EQ(results[k].values<int64_t>()[i], -want[static_cast<size_t>(i)]) << k << "/" << i;
    }
  }
  actor->stop();
}

TEST(ProcessResultRegion, ADeathWithinMicrosecondsOfTheCallIsNoticedAtOnce) {
  TempDir dir;
  OneActorPool pool(
      process_spec<KillSelfOnce>("kill", "KillSelfOnce", int64(), {{"marker", dir.file("m")}}, 1));
  const auto in = ramp(1000, 5);
  const auto t0 = std::chrono::steady_clock::now();
  const Column out = column_of(pool.run(int_batch(in)));
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_EQ(out.size(), 1000);
  for (int64_t i = 0; i < 1000; ++i)
    ASSERT_EQ(out.value<int64_t>(i), in[static_cast<size_t>(i)] + 1);
  EXPECT_EQ(pool.pool().stats().inits, 2);
  // A restart is a fork, an exec and a construction; a missed death would be a hang.
  EXPECT_LT(took, std::chrono::seconds(20));
  pool.pool().stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessResultRegion, AWorkerKilledWhileWaitingForTheNextBatchIsReplaced) {
  OneActorPool pool(process_spec<Probe>("probe", "Probe", utf8(), {{"report", "pid"}}, 1));
  for (int round = 0; round < 3; ++round) {
    // Killed right after answering, while it may still be polling for the next call.
    const Column first = column_of(pool.run(int_batch({1, 2})));
    const pid_t victim = std::atoi(std::string(first.value<std::string_view>(0)).c_str());
    ASSERT_EQ(::kill(victim, SIGKILL), 0);
    const Column second = column_of(pool.run(int_batch({3})));
    EXPECT_NE(std::atoi(std::string(second.value<std::string_view>(0)).c_str()), victim);
  }
  EXPECT_EQ(pool.pool().stats().inits, 4);
  pool.pool().stop();
  EXPECT_TRUE(all_children(::getpid()).empty());
}

TEST(ProcessResultRegion, AnIdleWorkerUsesNoCpu) {
  auto actor = make_process_actor(
      process_spec<Probe>("probe", "Probe", utf8(), {{"report", "pid"}}), actor_context(0));
  actor->start();
  pid_t worker = 0;
  for (int i = 0; i < 50; ++i) {
    worker = std::atoi(std::string(actor->call(int_batch({1})).value<std::string_view>(0)).c_str());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // past any spin
  auto cpu_ticks = [&] {
    const auto f = proc_stat(worker);
    return f.size() > 12 ? std::atol(f[11].c_str()) + std::atol(f[12].c_str()) : -1L;
  };
  const long before = cpu_ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  const long after = cpu_ticks();
  ASSERT_GE(before, 0);
  EXPECT_LE(after - before, 2) << "an idle worker must block, not poll (ticks of 1/100 s)";
  actor->stop();
}

}  // namespace
}  // namespace ember::test
