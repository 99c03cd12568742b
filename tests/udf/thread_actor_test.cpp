// The in-process actor: construction with the actor's context, calls, teardown, error wording.
#include <gtest/gtest.h>

#include "pool_test_udfs.h"
#include "udf/actor.h"

namespace ember {
namespace {

using pool_test::counts;
using pool_test::Doubler;

struct SeesContext {
  SeesContext(const InitArgs& a, const ActorContext& c) : base(a.get<int64_t>("base")), ctx(c) {}
  Column operator()(const Batch& in) {
    return Column::from(std::vector<int64_t>(static_cast<size_t>(in.num_rows()),
                                             base + ctx.actor_id * 100 + ctx.gpu_ids.at(0)));
  }
  int64_t base;
  ActorContext ctx;
};

struct Unknown {};
struct ThrowsNonStd {
  explicit ThrowsNonStd(const InitArgs&) { throw Unknown{}; }
  Column operator()(const Batch&) { return {}; }
};

Batch two_texts() {
  return Batch(
      Schema({{"text", utf8()}, {"n", int64()}}),
      {Column::from(std::vector<std::string>{"a", "b"}), Column::from(std::vector<int64_t>{1, 2})});
}

TEST(ThreadActor, ConstructsWithItsContextAndCalls) {
  auto spec = detail::UdfAccess::spec(
      Udf::cls<SeesContext>("ctx").returns(int64()).init_args({{"base", int64_t{7}}}));
  auto actor = make_thread_actor(spec, ActorContext{2, {5}, 1, 0});
  EXPECT_EQ(actor->inits(), 0);
  actor->start();
  EXPECT_EQ(actor->inits(), 1);
  Column out = actor->call(two_texts());
  ASSERT_EQ(out.size(), 2);
  EXPECT_EQ(out.value<int64_t>(1), 7 + 200 + 5);
  actor->stop();
  actor->stop();
}

TEST(ThreadActor, StopRunsTheDestructor) {
  counts.reset();
  auto spec = detail::UdfAccess::spec(Udf::cls<Doubler>("doubler").returns(int64()));
  auto actor = make_thread_actor(spec, ActorContext{});
  actor->start();
  EXPECT_EQ(counts.constructed, 1);
  actor->stop();
  EXPECT_EQ(counts.destroyed, 1);
  EXPECT_THROW(actor->call(two_texts()), UdfError);  // not started any more
}

TEST(ThreadActor, ConstructorErrorsNameTheActor) {
  auto spec =
      detail::UdfAccess::spec(Udf::cls<Doubler>("speller").init_args({{"fail_actor", int64_t{1}}}));
  auto actor = make_thread_actor(spec, ActorContext{1, {}, 1, 0});
  try {
    actor->start();
    FAIL();
  } catch (const UdfError& e) {
    EXPECT_STREQ(e.what(), "udf 'speller' actor #1 failed to initialise: no dictionary");
  }
  auto odd =
      make_thread_actor(detail::UdfAccess::spec(Udf::cls<ThrowsNonStd>("odd")), ActorContext{});
  try {
    odd->start();
    FAIL();
  } catch (const UdfError& e) {
    EXPECT_NE(std::string(e.what()).find("udf 'odd' actor #0 failed to initialise: unknown"),
              std::string::npos)
        << e.what();
  }
}

TEST(ThreadActor, CallErrorsNameTheUdfAndTheInputShape) {
  auto spec = detail::UdfAccess::spec(
      Udf::cls<Doubler>("speller").init_args({{"mode", std::string("throw")}}));
  auto actor = make_thread_actor(spec, ActorContext{});
  actor->start();
  try {
    actor->call(two_texts());
    FAIL();
  } catch (const UdfError& e) {
    EXPECT_STREQ(e.what(),
                 "udf 'speller' failed on 2 args (text: utf8, n: int64), 2 rows: bad row");
  }
}

}  // namespace
}  // namespace ember
