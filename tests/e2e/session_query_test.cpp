// Sessions through whole queries: actors constructed once per session, reused, reaped, replaced.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>

#include "ember/ember.h"

using namespace ember;
using namespace std::chrono_literals;

namespace {

std::atomic<int> model_inits{0}, model_destroyed{0}, shared_calls{0};

/// Adds its init arg "offset" to every row; counts constructions and destructions, and calls
/// that found another call already running on the same instance (sharing).
class SessionModel {
 public:
  explicit SessionModel(const InitArgs& a) : offset_(a.get<int64_t>("offset")) { model_inits++; }
  ~SessionModel() { model_destroyed++; }
  Column operator()(const Batch& in) {
    if (active_.fetch_add(1) != 0) shared_calls++;
    ColumnBuilder b(int64(), in.num_rows());
    for (int64_t i = 0; i < in.num_rows(); ++i) b.append(in.column(0).value<int64_t>(i) + offset_);
    active_.fetch_sub(1);
    return b.finish();
  }

 private:
  int64_t offset_;
  std::atomic<int> active_{0};
};

/// Returns its worker's pid for every row.
class SessionPid {
 public:
  explicit SessionPid(const InitArgs&) {}
  Column operator()(const Batch& in) {
    return Column::repeat(Value{static_cast<int64_t>(getpid())}, int64(), in.num_rows());
  }
};

/// Returns its argument; the first call of all (no file at init arg "marker" yet) creates the
/// file and kills its worker.
class SessionCrash {
 public:
  explicit SessionCrash(const InitArgs& a) : marker_(a.get<std::string>("marker")) {}
  Column operator()(const Batch& in) {
    if (access(marker_.c_str(), F_OK) != 0) {
      if (FILE* f = std::fopen(marker_.c_str(), "w")) std::fclose(f);
      std::abort();
    }
    return in.column(0);
  }

 private:
  std::string marker_;
};

void reset_counts() { model_inits = model_destroyed = shared_calls = 0; }

Udf model(int64_t offset, int actors = 2) {
  return Udf::cls<SessionModel>("model")
      .returns(int64())
      .init_args({{"offset", offset}})
      .concurrency(actors)
      .num_cpus(1)
      .batch_size(64);
}

RunOptions in(Session* s) {
  RunOptions o;
  o.resources = Resources{8, 0, int64_t{8} << 30};
  o.session = s;
  return o;
}

/// Waits (yielding) until `n` reaches `want`; bounded so a bug fails rather than hangs.
bool await_count(const std::atomic<int>& n, int want) {
  const auto give_up = std::chrono::steady_clock::now() + 60s;
  while (n.load() != want && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(1ms);
  return n.load() == want;
}

/// Waits until process `pid` (a child not yet reaped) has died: a zombie has closed its files.
bool await_exit(pid_t pid) {
  const auto give_up = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < give_up) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (!stat || close == std::string::npos || text.substr(close + 2, 1) == "Z") return true;
    std::this_thread::sleep_for(1ms);
  }
  return false;
}

}  // namespace

EMBER_REGISTER_UDF(SessionPid);
EMBER_REGISTER_UDF(SessionCrash);

TEST(SessionQuery, FiveQueriesConstructEachActorOnce) {
  reset_counts();
  const Table expected = range(3000, 6).with_column("m", model(7)(col("id"))).collect(in(nullptr));
  ASSERT_EQ(model_inits.load(), 2);
  reset_counts();
  {
    Session session;
    int64_t inits_in_queries = 0;
    for (int q = 0; q < 5; ++q) {
      QueryResult r = range(3000, 6).with_column("m", model(7)(col("id"))).execute(in(&session));
      EXPECT_EQ(r.table.to_string(5000), expected.to_string(5000)) << "query " << q;
      EXPECT_EQ(r.stats.udfs.at(0).actors, 2);
      EXPECT_EQ(r.stats.udfs.at(0).rows, 3000) << "query " << q;
      inits_in_queries += r.stats.udfs.at(0).inits;
    }
    EXPECT_EQ(model_inits.load(), 2);  // inits == actors, not 5 x actors
    EXPECT_EQ(inits_in_queries, 2);
    EXPECT_EQ(model_destroyed.load(), 0);  // warm between queries
    SessionStats s = session.stats();
    EXPECT_EQ(s.inits, 2);
    EXPECT_EQ(s.reuses, 4);
    EXPECT_EQ(s.actors, 2);
    ASSERT_EQ(s.udfs.size(), 1u);
    EXPECT_EQ(s.udfs[0].name, "model");
    EXPECT_EQ(s.udfs[0].busy_actors, 0);
    EXPECT_DOUBLE_EQ(s.udfs[0].held_cpus, 2);
    const std::string plan = range(10).with_column("m", model(7)(col("id"))).explain(in(&session));
    EXPECT_NE(plan.find("== Session (warm actors) =="), std::string::npos) << plan;
    EXPECT_NE(plan.find("model: 2 actors warm (idle), holding 2 CPU"), std::string::npos) << plan;
  }
  EXPECT_EQ(model_destroyed.load(), 2);  // the destructor closed the session
}

TEST(SessionQuery, WarmActorsHoldTheirResourcesUntilClosed) {
  reset_counts();
  Session session;
  RunOptions o = in(&session);
  o.resources = Resources{2, 0, int64_t{1} << 30};
  range(100).with_column("m", model(1)(col("id"))).collect(o);
  // A query outside the session cannot have the CPUs the warm actors hold.
  RunOptions other = o;
  other.session = nullptr;
  EXPECT_THROW(range(100).with_column("m", model(2, 1)(col("id"))).collect(other), ResourceError);
  session.close();
  EXPECT_EQ(model_destroyed.load(), 2);
  EXPECT_EQ(session.stats().actors, 0);
  EXPECT_NO_THROW(range(100).with_column("m", model(2, 1)(col("id"))).collect(other));
}

TEST(SessionQuery, IdleActorsOfAnotherUdfMakeRoomForTheSessionsNextQuery) {
  reset_counts();
  Session session;
  RunOptions o = in(&session);
  o.resources = Resources{2, 0, int64_t{1} << 30};
  range(100).with_column("m", model(1)(col("id"))).collect(o);  // 2 warm actors, 2 CPUs
  EXPECT_EQ(session.stats().actors, 2);
  // Another UDF needing both CPUs: the idle warm ones are destroyed to let it run.
  Table t = range(100).with_column("m", model(50)(col("id"))).collect(o);
  EXPECT_EQ(t.column("m").value<int64_t>(0), 50);
  EXPECT_EQ(model_destroyed.load(), 2);
  EXPECT_EQ(session.stats().actors, 2);
  EXPECT_EQ(session.stats().destroyed_actors, 2);
}

TEST(SessionQuery, IdleActorsAreDestroyedAfterTheTimeout) {
  reset_counts();
  Session session(SessionOptions{20ms});
  range(500, 2).with_column("m", model(3)(col("id"))).collect(in(&session));
  EXPECT_TRUE(await_count(model_destroyed, 2)) << model_destroyed.load();
  EXPECT_EQ(session.stats().actors, 0);
  EXPECT_EQ(session.stats().destroyed_actors, 2);
  // Scaled to zero: the next query constructs afresh.
  range(500, 2).with_column("m", model(3)(col("id"))).collect(in(&session));
  EXPECT_EQ(model_inits.load(), 4);
}

TEST(SessionQuery, DifferentInitArgsGetDifferentActors) {
  reset_counts();
  Session session;
  Table a = range(200).with_column("m", model(1, 1)(col("id"))).collect(in(&session));
  Table b = range(200).with_column("m", model(100, 1)(col("id"))).collect(in(&session));
  EXPECT_EQ(a.column("m").value<int64_t>(5), 6);
  EXPECT_EQ(b.column("m").value<int64_t>(5), 105);
  EXPECT_EQ(model_inits.load(), 2);
  range(200).with_column("m", model(1, 1)(col("id"))).collect(in(&session));
  range(200).with_column("m", model(100, 1)(col("id"))).collect(in(&session));
  EXPECT_EQ(model_inits.load(), 2);
  EXPECT_EQ(session.stats().udfs.size(), 2u);
  EXPECT_EQ(session.stats().reuses, 2);
}

TEST(SessionQuery, ConcurrentQueriesNeverShareAnActor) {
  reset_counts();
  Session session;
  std::vector<std::thread> queries;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    queries.emplace_back([&] {
      for (int q = 0; q < 3; ++q) {
        Table r = range(2000, 4).with_column("m", model(5, 1)(col("id"))).collect(in(&session));
        for (int64_t i = 0; i < r.num_rows(); ++i)
          if (r.column("m").value<int64_t>(i) != r.column("id").value<int64_t>(i) + 5) wrong++;
      }
    });
  }
  for (auto& q : queries) q.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(shared_calls.load(), 0);
  const SessionStats s = session.stats();
  EXPECT_EQ(s.inits + s.reuses, 12);  // every query either constructed or borrowed one pool
  EXPECT_LE(s.inits, 4);              // at most one pool per query running at once
}

TEST(SessionQuery, AKilledProcessWorkerIsReplacedNotReused) {
  Session session;
  Udf who = Udf::cls<SessionPid>("pid").returns(int64()).isolation(Isolation::Process);
  auto run = [&] { return range(100).with_column("pid", who(col("id"))).execute(in(&session)); };
  QueryResult first = run();
  const int64_t pid = first.table.column("pid").value<int64_t>(0);
  EXPECT_EQ(run().table.column("pid").value<int64_t>(0), pid);  // warm: the same worker
  ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
  ASSERT_TRUE(await_exit(static_cast<pid_t>(pid)));
  // The dead worker is noticed before the pool is lent (no retry needed: max_retries is 0).
  QueryResult third = run();
  const int64_t replacement = third.table.column("pid").value<int64_t>(0);
  EXPECT_NE(replacement, pid);
  EXPECT_EQ(third.stats.udfs.at(0).inits, 1);
  EXPECT_EQ(session.stats().inits, 2);
  EXPECT_EQ(session.stats().actors, 1);
  EXPECT_EQ(run().table.column("pid").value<int64_t>(0), replacement);
}

TEST(SessionQuery, APoolWhoseQueryFailedIsNotKept) {
  Session session;
  const std::string marker =
      testing::TempDir() + "/ember_session_crash_" + std::to_string(getpid());
  std::remove(marker.c_str());
  Udf crash = Udf::cls<SessionCrash>("crash")
                  .returns(int64())
                  .init_args({{"marker", marker}})
                  .isolation(Isolation::Process);
  // The first call kills its worker; without retries the query fails.
  EXPECT_THROW(range(100).with_column("c", crash(col("id"))).collect(in(&session)), UdfError);
  EXPECT_EQ(session.stats().actors, 0);
  QueryResult r = range(100).with_column("c", crash(col("id"))).execute(in(&session));
  EXPECT_EQ(r.table.column("c").value<int64_t>(9), 9);
  EXPECT_EQ(r.stats.udfs.at(0).inits, 1);
  EXPECT_EQ(session.stats().inits, 2);
  EXPECT_EQ(session.stats().actors, 1);
  std::remove(marker.c_str());
}

TEST(SessionQuery, RejectsANegativeIdleTimeout) {
  EXPECT_THROW(Session(SessionOptions{-1ms}), InvalidArgument);
}
