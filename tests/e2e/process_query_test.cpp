// Process-isolated actors through whole queries.
#include <gtest/gtest.h>
#include <unistd.h>

#include <set>

#include "ember/ember.h"

using namespace ember;

namespace {

/// Returns the worker's pid for every row.
class WhoAmI {
 public:
  explicit WhoAmI(const InitArgs&) {}
  Column operator()(const Batch& in) {
    return Column::repeat(Value{static_cast<int64_t>(getpid())}, int64(), in.num_rows());
  }
};

/// Squares its argument; aborts the worker on the first call when "crash_marker" is a path
/// that does not exist yet (it creates it first, so the retry succeeds).
class Square {
 public:
  explicit Square(const InitArgs& a) : marker_(a.has("crash_marker") ? a.get<std::string>("crash_marker") : "") {}
  Column operator()(const Batch& in) {
    if (!marker_.empty() && access(marker_.c_str(), F_OK) != 0) {
      FILE* f = std::fopen(marker_.c_str(), "w");
      if (f) std::fclose(f);
      std::abort();
    }
    ColumnBuilder b(int64(), in.num_rows());
    for (int64_t i = 0; i < in.num_rows(); ++i) {
      int64_t v = in.column(0).value<int64_t>(i);
      b.append(v * v);
    }
    return b.finish();
  }

 private:
  std::string marker_;
};

}  // namespace

EMBER_REGISTER_UDF(WhoAmI);
EMBER_REGISTER_UDF(Square);

namespace {

RunOptions machine() {
  RunOptions o;
  o.resources = Resources{8, 0, int64_t{8} << 30};
  return o;
}

}  // namespace

TEST(ProcessQuery, ActorsRunInOtherProcessesOneEach) {
  Udf who = Udf::cls<WhoAmI>("who").returns(int64()).concurrency(2).batch_size(100)
                .isolation(Isolation::Process);
  QueryResult r = range(5000, 8).with_column("pid", who(col("id"))).execute(machine());
  Column pid = r.table.column("pid");
  std::set<int64_t> pids;
  for (int64_t i = 0; i < pid.size(); ++i) pids.insert(pid.value<int64_t>(i));
  EXPECT_EQ(pids.count(getpid()), 0u);
  EXPECT_LE(pids.size(), 2u);
  EXPECT_EQ(r.stats.udfs.at(0).inits, 2);
}

TEST(ProcessQuery, CrashedWorkerIsRetriedAndNoRowIsLostOrDuplicated) {
  std::string marker = testing::TempDir() + "/ember_square_crash_" + std::to_string(getpid());
  std::remove(marker.c_str());
  Udf sq = Udf::cls<Square>("square").returns(int64()).init_args({{"crash_marker", marker}})
               .batch_size(64).concurrency(1).max_retries(1).isolation(Isolation::Process);
  QueryResult r = range(2000, 4).with_column("sq", sq(col("id"))).execute(machine());
  Column c = r.table.column("sq");
  ASSERT_EQ(c.size(), 2000);
  for (int64_t i = 0; i < 2000; ++i) ASSERT_EQ(c.value<int64_t>(i), i * i) << i;
  EXPECT_EQ(r.stats.udfs.at(0).inits, 2);  // the original worker and its replacement
  std::remove(marker.c_str());
}

TEST(ProcessQuery, CrashWithoutRetriesIsUdfError) {
  std::string marker = testing::TempDir() + "/ember_square_crash2_" + std::to_string(getpid());
  std::remove(marker.c_str());
  Udf sq = Udf::cls<Square>("square").returns(int64()).init_args({{"crash_marker", marker}})
               .batch_size(64).isolation(Isolation::Process);
  try {
    range(1000).with_column("sq", sq(col("id"))).collect(machine());
    FAIL() << "expected UdfError";
  } catch (const UdfError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("square"), std::string::npos) << m;
    EXPECT_NE(m.find("SIGABRT"), std::string::npos) << m;
  }
  std::remove(marker.c_str());
}
