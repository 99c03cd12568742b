// The cache of freed buffer blocks: reuse, zero-filling of recycled memory, the padding of
// uninitialised buffers, cross-thread reuse and the bound on idle memory.
#include "core/buffer_cache.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "core/buffer_access.h"
#include "ember/column.h"

namespace ember {
namespace {

constexpr int64_t kBlock = 512 << 10;  // one morsel's int64 column

TEST(BufferCacheTest, FreedBlockIsReusedAndAllocateStillZeroFills) {
  const uint8_t* first;
  {
    auto b = detail::BufferAccess::allocate_uninitialized(kBlock);
    std::memset(detail::BufferAccess::mutable_data(*b), 0xab, kBlock);
    first = b->data();
  }
  auto again = Buffer::allocate(kBlock - 64);  // same size class
  EXPECT_EQ(again->data(), first);
  for (int64_t i = 0; i < again->size(); ++i) ASSERT_EQ(again->data()[i], 0) << i;
}

TEST(BufferCacheTest, UninitializedBufferZeroesOnlyItsPadding) {
  {
    auto dirty = detail::BufferAccess::allocate_uninitialized(kBlock);
    std::memset(detail::BufferAccess::mutable_data(*dirty), 0xff, kBlock);
  }
  for (int64_t size : {int64_t{0}, int64_t{1}, int64_t{63}, kBlock - 3}) {
    auto b = detail::BufferAccess::allocate_uninitialized(size);
    EXPECT_EQ(b->size(), size);
    ASSERT_NE(b->data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % 64, 0u);
    const int64_t padded = size == 0 ? 64 : (size + 63) / 64 * 64;
    for (int64_t i = size; i < padded; ++i) ASSERT_EQ(b->data()[i], 0) << size << " at " << i;
  }
}

TEST(BufferCacheTest, CopyOfHoldsTheBytesAndZeroPadding) {
  {
    auto dirty = detail::BufferAccess::allocate_uninitialized(kBlock);
    std::memset(detail::BufferAccess::mutable_data(*dirty), 0xff, kBlock);
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(kBlock - 5));
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 1);
  auto b = Buffer::copy_of(bytes.data(), static_cast<int64_t>(bytes.size()));
  ASSERT_EQ(b->size(), kBlock - 5);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % 64, 0u);
  EXPECT_EQ(std::memcmp(b->data(), bytes.data(), bytes.size()), 0);
  for (int64_t i = kBlock - 5; i < kBlock; ++i) ASSERT_EQ(b->data()[i], 0) << i;
  EXPECT_EQ(Buffer::copy_of(nullptr, 0)->size(), 0);
}

TEST(BufferCacheTest, BlocksFreedOnOneThreadServeAnother) {
  std::shared_ptr<Buffer> b = detail::BufferAccess::allocate_uninitialized(kBlock * 2);
  const uint8_t* p = b->data();
  std::thread([&b] { b.reset(); }).join();
  std::shared_ptr<Buffer> got;
  std::thread([&got] { got = detail::BufferAccess::allocate_uninitialized(kBlock * 2); }).join();
  EXPECT_EQ(got->data(), p);
}

TEST(BufferCacheTest, IdleMemoryStaysBounded) {
  std::vector<std::shared_ptr<Buffer>> many;
  const int64_t block = int64_t(BufferCache::kMaxBlock);
  for (size_t held = 0; held <= BufferCache::kMaxCachedBytes + BufferCache::kMaxBlock;
       held += BufferCache::kMaxBlock) {
    many.push_back(detail::BufferAccess::allocate_uninitialized(block));
  }
  many.clear();
  EXPECT_LE(BufferCache::instance().cached_bytes(), BufferCache::kMaxCachedBytes);
  EXPECT_EQ(BufferCache::capacity_for(100), 128u);
  EXPECT_EQ(BufferCache::capacity_for(0), 64u);
  EXPECT_EQ(BufferCache::capacity_for((64 << 10) + 1), size_t(128) << 10);
}

}  // namespace
}  // namespace ember
