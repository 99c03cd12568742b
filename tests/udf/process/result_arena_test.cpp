// ResultArena and ScopedBufferSource on their own: which allocations land in the region, what
// happens when it is full, and how a buffer kept past the call is noticed.
#include "udf/process/result_arena.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/buffer_access.h"
#include "core/buffer_source.h"
#include "udf/process/shared_region.h"

namespace ember::process {
namespace {

constexpr int64_t kMin = 64 << 10;

TEST(ResultArena, LargeAllocationsOnTheInstallingThreadComeFromTheRegion) {
  SharedRegion region = SharedRegion::create("ember-result", 4 << 20);
  ResultArena arena;
  arena.begin(region.map);
  std::shared_ptr<Buffer> big, small, outside;
  {
    const ScopedBufferSource scope(&arena, kMin);
    big = Buffer::allocate(kMin + 3);
    small = Buffer::allocate(kMin - 1);
  }
  outside = Buffer::allocate(kMin * 2);  // the scope is gone: the heap again
  arena.end();
  EXPECT_TRUE(arena.holds(*big));
  EXPECT_EQ(arena.offset_of(*big), 0u);
  EXPECT_FALSE(arena.holds(*small));
  EXPECT_FALSE(arena.holds(*outside));
  EXPECT_EQ(arena.used(), static_cast<size_t>(kMin + 64));  // 64-byte aligned extent
  // allocate() zero-fills, padding included, even over bytes an earlier batch left behind.
  for (int64_t i = 0; i < kMin + 64; ++i) ASSERT_EQ(big->data()[i], 0) << i;
  EXPECT_TRUE(arena.in_use()) << "a buffer handed out is still referenced";
  big.reset();
  EXPECT_FALSE(arena.in_use());
}

TEST(ResultArena, AFullRegionSendsAllocationsToTheHeap) {
  SharedRegion region = SharedRegion::create("ember-result", 1 << 20);
  const auto size = static_cast<int64_t>(region.size());
  constexpr int64_t kQuarter = 256 << 10;
  ResultArena arena;
  arena.begin(region.map);
  const ScopedBufferSource scope(&arena, kMin);
  auto first = detail::BufferAccess::allocate_uninitialized(size - kQuarter);
  auto second =
      detail::BufferAccess::allocate_uninitialized(2 * kQuarter);       // more than what is left
  auto third = detail::BufferAccess::allocate_uninitialized(kQuarter);  // exactly what is left
  EXPECT_TRUE(arena.holds(*first));
  EXPECT_FALSE(arena.holds(*second));
  EXPECT_TRUE(arena.holds(*third));
  EXPECT_EQ(arena.offset_of(*third), static_cast<uint64_t>(size - kQuarter));
  EXPECT_EQ(arena.used(), static_cast<size_t>(size));
  std::memset(detail::BufferAccess::mutable_data(*second), 7,
              2 * kQuarter);  // a heap buffer, fully writable
}

TEST(ResultArena, ScopesNestAndTheInnermostWins) {
  SharedRegion outer_region = SharedRegion::create("ember-result", 1 << 20);
  SharedRegion inner_region = SharedRegion::create("ember-result", 1 << 20);
  ResultArena outer, inner;
  outer.begin(outer_region.map);
  inner.begin(inner_region.map);
  std::shared_ptr<Buffer> a, b, c;
  {
    const ScopedBufferSource s1(&outer, kMin);
    {
      const ScopedBufferSource s2(&inner, kMin);
      a = Buffer::allocate(kMin);
    }
    b = Buffer::allocate(kMin);
  }
  c = Buffer::allocate(kMin);
  EXPECT_TRUE(inner.holds(*a));
  EXPECT_TRUE(outer.holds(*b));
  EXPECT_FALSE(outer.holds(*c));
  EXPECT_FALSE(inner.holds(*c));
}

TEST(ResultArena, AClosedOrRestartedArenaHandsOutNothingOld) {
  SharedRegion region = SharedRegion::create("ember-result", 1 << 20);
  ResultArena arena;
  arena.begin(region.map);
  std::shared_ptr<Buffer> kept;
  {
    const ScopedBufferSource scope(&arena, kMin);
    kept = Buffer::allocate(kMin);
  }
  arena.end();
  EXPECT_EQ(arena.take(kMin), nullptr) << "ended: nothing more is handed out";
  EXPECT_TRUE(arena.in_use());
  arena.begin(region.map);  // a new call: the old buffer no longer counts as this call's
  EXPECT_FALSE(arena.holds(*kept));
  EXPECT_FALSE(arena.in_use());
}

}  // namespace
}  // namespace ember::process
