// A stateful UDF's teardown never runs on, or holds, a pipeline thread: its slow destructor runs
// on the actor's own thread after the pipelines ended, whether the query succeeds or fails.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "ember/ember.h"

using namespace ember;

namespace {

struct Threads {
  std::mutex mu;
  std::set<std::thread::id> pipeline;  ///< where the stateless UDF ran (inline)
  std::set<std::thread::id> destructor;
  void reset() {
    std::lock_guard lock(mu);
    pipeline.clear();
    destructor.clear();
  }
};
Threads threads;

/// x + 1; throws on the batch holding row "fail_at" if set; takes 200 ms to destroy.
class SlowTeardown {
 public:
  explicit SlowTeardown(const InitArgs& a)
      : fail_at_(a.has("fail_at") ? a.get<int64_t>("fail_at") : -1) {}
  ~SlowTeardown() {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::lock_guard lock(threads.mu);
    threads.destructor.insert(std::this_thread::get_id());
  }
  Column operator()(const Batch& in) {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      int64_t x = in.column(0).value<int64_t>(i);
      if (x == fail_at_) throw std::runtime_error("bad row");
      out.push_back(x + 1);
    }
    return Column::from(std::move(out));
  }

 private:
  int64_t fail_at_;
};

Udf record_pipeline_thread() {
  return Udf::fn("record_thread",
                 [](const Batch& in) {
                   {
                     std::lock_guard lock(threads.mu);
                     threads.pipeline.insert(std::this_thread::get_id());
                   }
                   return in.column(0);
                 })
      .returns(int64());
}

DataFrame query(InitArgs args) {
  Udf slow =
      Udf::cls<SlowTeardown>("slow_teardown").returns(int64()).concurrency(2).batch_size(100);
  return range(5000, 8)
      .select({record_pipeline_thread()(col("id")).alias("id")})
      .select({slow.init_args(std::move(args))(col("id")).alias("y")});
}

/// `all_actors`: both actors constructed (a query that fails may end before the second one's
/// construction began, and then it never constructs).
void expect_teardown_off_pipeline_threads(bool all_actors) {
  std::lock_guard lock(threads.mu);
  ASSERT_FALSE(threads.pipeline.empty());
  if (all_actors)
    ASSERT_EQ(threads.destructor.size(), 2u) << "each actor destroys its instance on its thread";
  else
    ASSERT_GE(threads.destructor.size(), 1u);
  for (const auto& id : threads.destructor) {
    EXPECT_EQ(threads.pipeline.count(id), 0u) << "a destructor ran on a pipeline thread";
    EXPECT_NE(id, std::this_thread::get_id());
  }
}

}  // namespace

TEST(PoolTeardown, SlowDestructorRunsOffThePipelineThreads) {
  for (int n : {1, 4}) {
    threads.reset();
    RunOptions options;
    options.threads = n;
    Table t = query({}).collect(options);
    EXPECT_EQ(t.num_rows(), 5000);
    expect_teardown_off_pipeline_threads(true);
  }
}

TEST(PoolTeardown, FailingQueryTearsDownOffThePipelineThreads) {
  for (int n : {1, 4}) {
    threads.reset();
    RunOptions options;
    options.threads = n;
    EXPECT_THROW(query({{"fail_at", Value{int64_t{1234}}}}).collect(options), UdfError);
    expect_teardown_off_pipeline_threads(false);
  }
}
