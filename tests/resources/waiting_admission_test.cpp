// Releasing one pool of an admission early, and admissions that wait for room in arrival order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "admission_requests.h"
#include "ember/error.h"
#include "resources/resource_pool.h"

namespace ember {
namespace {

using testing_resources::admission_error;
using testing_resources::request;
using namespace std::chrono_literals;

/// Spins (yielding) until `pool` has `n` admissions waiting; bounded so a bug fails, not hangs.
void await_waiting(const ResourcePool& pool, int n) {
  for (int i = 0; i < 2'000'000 && pool.waiting() != n; ++i) std::this_thread::yield();
  ASSERT_EQ(pool.waiting(), n);
}

TEST(EarlyRelease, OnePoolOfAnAdmissionGoesBackAlone) {
  ResourcePool pool(Resources{4, 1, 0});
  ResourceLease lease = pool.admit({request("gpu", 1, 1, 1), request("cpu", 2, 1)});
  EXPECT_NE(admission_error(pool, {request("other", 1, 0, 1)}), "");
  lease.release_pool(0);
  // The GPU and one CPU are free now; the other pool's two CPUs are still held.
  EXPECT_EQ(admission_error(pool, {request("other", 1, 0, 1)}), "");
  EXPECT_NE(admission_error(pool, {request("other", 1, 3)}), "");
  lease.release_pool(0);  // idempotent
  lease.release();
  EXPECT_EQ(admission_error(pool, {request("other", 4, 1, 0.25)}), "");
}

TEST(EarlyRelease, ATakenPoolOutlivesTheRestOfItsAdmission) {
  ResourcePool pool(Resources{2, 0, 0});
  ResourceLease lease = pool.admit({request("a", 1, 1), request("b", 1, 1)});
  ResourceLease b = lease.take_pool(1);
  ASSERT_EQ(b.pools().size(), 1u);
  EXPECT_EQ(b.pools()[0].udf_name, "b");
  lease.release();
  EXPECT_EQ(admission_error(pool, {request("x", 1, 1)}), "");
  EXPECT_NE(admission_error(pool, {request("x", 2, 1)}), "");  // b still holds one
  b.release();
  EXPECT_EQ(admission_error(pool, {request("x", 2, 1)}), "");
}

TEST(WaitForResources, WaitsThenAdmitsWhenAnotherQueryReleases) {
  ResourcePool pool(Resources{2, 1, 0});
  ResourceLease first = pool.admit({request("first", 1, 1, 1)});
  std::atomic<bool> admitted{false};
  std::thread second([&] {
    ResourceLease l = pool.admit({request("second", 1, 1, 1)}, 60s);
    admitted = true;
  });
  await_waiting(pool, 1);
  EXPECT_FALSE(admitted);
  first.release();
  second.join();
  EXPECT_TRUE(admitted);
  EXPECT_EQ(pool.waiting(), 0);
}

TEST(WaitForResources, AdmitsInArrivalOrderEvenWhenALaterRequestWouldFit) {
  ResourcePool pool(Resources{2, 0, 0});
  ResourceLease holder = pool.admit({request("holder", 2, 1)});
  std::mutex mu;
  std::vector<std::string> order;
  ResourceLease big_lease;
  std::thread big([&] {
    ResourceLease l = pool.admit({request("big", 2, 1)}, 60s);
    std::lock_guard lock(mu);
    order.push_back("big");
    big_lease = std::move(l);
  });
  await_waiting(pool, 1);
  std::thread small([&] {
    ResourceLease l = pool.admit({request("small", 1, 1)}, 60s);
    std::lock_guard lock(mu);
    order.push_back("small");
  });
  await_waiting(pool, 2);
  holder.release();
  big.join();
  // "small" would have fitted beside nothing, but it arrived after "big" and waits behind it.
  await_waiting(pool, 1);
  {
    std::lock_guard lock(mu);
    big_lease.release();
  }
  small.join();
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0], "big");
  EXPECT_EQ(order[1], "small");
}

TEST(WaitForResources, ARequestBeyondTheMachineFailsAtOnce) {
  ResourcePool pool(Resources{2, 1, 0});
  ResourceLease holder = pool.admit({request("holder", 1, 1)});
  try {
    pool.admit({request("huge", 3, 1)}, std::chrono::hours(1));
    FAIL() << "expected ResourceError";
  } catch (const ResourceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("huge"), std::string::npos) << m;
    EXPECT_NE(m.find("3"), std::string::npos) << m;
    EXPECT_NE(m.find("2 CPUs"), std::string::npos) << m;
  }
  EXPECT_THROW(pool.admit({request("gpus", 2, 0, 1)}, std::chrono::hours(1)), ResourceError);
  EXPECT_EQ(pool.waiting(), 0);
}

TEST(WaitForResources, GivesUpAfterItsWaitSayingSo) {
  ResourcePool pool(Resources{1, 0, 0});
  ResourceLease holder = pool.admit({request("holder", 1, 1)});
  try {
    pool.admit({request("late", 1, 1)}, 20ms);
    FAIL() << "expected ResourceError";
  } catch (const ResourceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("late"), std::string::npos) << m;
    EXPECT_NE(m.find("wait_for_resources"), std::string::npos) << m;
  }
  EXPECT_EQ(pool.waiting(), 0);
}

}  // namespace
}  // namespace ember
