// Admission at the edges of the number types: requests and totals near INT64_MAX, sums that do
// not fit in int64, huge CPU and GPU counts. Each must be refused (or admitted) exactly, with a
// message that prints the true amounts, and never wrap or overflow (the ASan+UBSan build runs
// these too).
#include <gtest/gtest.h>

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "admission_requests.h"
#include "ember/error.h"
#include "resources/resource_pool.h"

namespace ember {
namespace {

constexpr int64_t kMaxBytes = std::numeric_limits<int64_t>::max();
constexpr int64_t k4EiB = int64_t{1} << 62;

using testing_resources::admission_error;
using testing_resources::kGiB;
using testing_resources::request;

TEST(ExtremeRequests, Int64MaxBytesTimesTwoActorsIsRefusedWithTheTrueTotal) {
  ResourcePool pool(Resources{8, 0, 16 * kGiB});
  EXPECT_EQ(admission_error(pool, {request("model", 2, 0, 0, kMaxBytes)}),
            "udf 'model' asks for 2 actors x 8 EiB = 16 EiB (18446744073709551614 bytes), but "
            "16 GiB (17179869184 bytes) exist (0 B held by other queries); lower .concurrency() "
            "or .memory_bytes()");
}

TEST(ExtremeRequests, TwoTimesTwoToThe62IsOneByteMoreThanInt64MaxHolds) {
  ResourcePool pool(Resources{2, 0, kMaxBytes});
  EXPECT_EQ(admission_error(pool, {request("model", 2, 0, 0, k4EiB)}),
            "udf 'model' asks for 2 actors x 4 EiB = 8 EiB (9223372036854775808 bytes), but 8 EiB "
            "(9223372036854775807 bytes) exist (0 B held by other queries); lower .concurrency() "
            "or .memory_bytes()");
  // Nothing stays held: the whole of it can still be admitted, once.
  ResourceLease all = pool.admit({request("all", 1, 0, 0, kMaxBytes)});
  EXPECT_EQ(all.pools().at(0).held_memory, kMaxBytes);
  EXPECT_EQ(admission_error(pool, {request("byte", 1, 0, 0, 1)}),
            "udf 'byte' asks for 1 actor x 1 B = 1 B (1 bytes), but 8 EiB (9223372036854775807 "
            "bytes) exist (8 EiB held by other queries, 0 B free); lower .concurrency() or "
            ".memory_bytes()");
  all.release();
  ResourceLease three = pool.admit({request("three", 3, 0, 0, kMaxBytes / 3)});
  EXPECT_EQ(three.pools().at(0).held_memory, kMaxBytes / 3 * 3);
}

TEST(ExtremeRequests, PoolsThatFitAloneButWhoseSumOverflowsInt64AreRefused) {
  ResourcePool pool(Resources{8, 0, kMaxBytes});
  EXPECT_EQ(admission_error(pool, {request("a", 1, 0, 0, k4EiB), request("b", 1, 0, 0, k4EiB),
                                   request("c", 1, 0, 0, k4EiB)}),
            "udfs 'a' (1 actor x 4 EiB), 'b' (1 actor x 4 EiB) and 'c' (1 actor x 4 EiB) ask for "
            "12 EiB (13835058055282163712 bytes) together, but 8 EiB (9223372036854775807 bytes) "
            "exist (0 B held by other queries); lower .concurrency() or .memory_bytes()");
  std::vector<PoolRequest> four;
  for (const char* name : {"a", "b", "c", "d"}) four.push_back(request(name, 1, 0, 0, kMaxBytes));
  std::string msg = admission_error(pool, four);
  EXPECT_NE(msg.find("ask for 32 EiB (36893488147419103228 bytes) together"), std::string::npos)
      << msg;
  // Many actors of the largest request: the product is far beyond 64 bits and still exact.
  msg = admission_error(pool, {request("wide", INT_MAX, 0, 0, kMaxBytes)});
  EXPECT_NE(msg.find("asks for 2147483647 actors x 8 EiB = 17179869176 EiB "
                     "(19807040619342712359383728129 bytes)"),
            std::string::npos)
      << msg;
  EXPECT_NO_THROW(pool.admit({request("a", 1, 0, 0, k4EiB), request("b", 1, 0, 0, k4EiB - 1)}));
}

TEST(ExtremeRequests, AHoldNearInt64MaxLeavesExactlyTheRest) {
  ResourcePool pool(Resources{8, 0, kMaxBytes});
  ResourceLease big = pool.admit({request("big", 1, 0, 0, kMaxBytes - 10)});
  std::string msg = admission_error(pool, {request("more", 1, 0, 0, k4EiB)});
  EXPECT_NE(msg.find("(8 EiB held by other queries, 10 B free)"), std::string::npos) << msg;
  ResourceLease rest = pool.admit({request("rest", 2, 0, 0, 5)});
  EXPECT_NE(admission_error(pool, {request("one", 1, 0, 0, 1)}), "");
  rest.release();
  big.release();
  EXPECT_NO_THROW(pool.admit({request("all", 1, 0, 0, kMaxBytes)}));
}

TEST(ExtremeRequests, HugeGpuCountsAreRefusedWithTheirTrueTotal) {
  ResourcePool pool(Resources{8, 2, kGiB});
  EXPECT_EQ(admission_error(pool, {request("embed", 2, 0, 1e9)}),
            "udf 'embed' asks for 2 actors x 1000000000 GPU = 2000000000 GPUs, but 2 GPUs exist (0 "
            "held by other queries); lower .concurrency() or .num_gpus()");
  std::string msg = admission_error(pool, {request("embed", 2, 0, DBL_MAX)});
  EXPECT_NE(msg.find("asks for 2 actors x 1.79769e+308 GPU = 3.59539e+308 GPUs"), std::string::npos)
      << msg;
  msg = admission_error(pool, {request("embed", INT_MAX, 0, 1e300)});
  EXPECT_NE(msg.find("asks for 2147483647 actors x 1e+300 GPU = 2.14748e+309 GPUs"),
            std::string::npos)
      << msg;
  EXPECT_NO_THROW(pool.admit({request("fits", 1, 0, 2)}));
}

TEST(ExtremeRequests, HugeCpuCountsAreRefusedWithTheirTrueTotal) {
  ResourcePool pool(Resources{8, 0, kGiB});
  EXPECT_EQ(admission_error(pool, {request("busy", 2, 1e300)}),
            "udf 'busy' asks for 2 actors x 1e+300 CPU = 2e+300 CPUs, but 8 CPUs exist (0 held by "
            "other queries); lower .concurrency() or .num_cpus()");
  std::string msg = admission_error(pool, {request("busy", 2, DBL_MAX)});
  EXPECT_NE(msg.find("asks for 2 actors x 1.79769e+308 CPU = 3.59539e+308 CPUs"), std::string::npos)
      << msg;
  // A billion CPUs still reads as a plain number.
  msg = admission_error(pool, {request("busy", 2, 1e9)});
  EXPECT_NE(msg.find("asks for 2 actors x 1000000000 CPU = 2000000000 CPUs"), std::string::npos)
      << msg;
  EXPECT_NO_THROW(pool.admit({request("fits", 8, 1)}));
}

TEST(ExtremeRequests, TotalsMustBeFiniteNonNegativeAndOfAPlausibleSize) {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  for (const Resources& bad :
       {Resources{nan, 0, 0}, Resources{inf, 0, 0}, Resources{-1, 0, 0}, Resources{1e300, 0, 0},
        Resources{1, -1, 0}, Resources{1, INT_MAX, 0}, Resources{1, 0, -1},
        Resources{1, 0, std::numeric_limits<int64_t>::min()}}) {
    EXPECT_THROW(ResourcePool{bad}, InvalidArgument)
        << bad.cpus << " " << bad.gpus << " " << bad.memory_bytes;
    EXPECT_THROW(ResourcePool::for_run(bad), InvalidArgument)
        << bad.cpus << " " << bad.gpus << " " << bad.memory_bytes;
  }
  try {
    ResourcePool::for_run(Resources{nan, 0, 0});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("RunOptions::resources"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cpus"), std::string::npos) << e.what();
  }
  // A refused override leaves nothing behind, and the largest sane totals are accepted.
  auto pool = ResourcePool::for_run(Resources{1e6, 4096, kMaxBytes});
  EXPECT_NO_THROW(pool->admit({request("all", 1, 1e6, 0, kMaxBytes)}));
  EXPECT_NO_THROW(ResourcePool(Resources{0, 0, 0}));
}

}  // namespace
}  // namespace ember
