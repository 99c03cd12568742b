// BufferCache: per-size-class free lists under a global byte budget.
#include "core/buffer_cache.h"

#include <atomic>
#include <bit>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
// Idle blocks are poisoned so that a use after free still trips AddressSanitizer.
#define EMBER_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define EMBER_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define EMBER_POISON(p, n) ((void)(p), (void)(n))
#define EMBER_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace ember {

namespace {
constexpr int kFirstShift = std::countr_zero(BufferCache::kMinBlock);
constexpr int kClasses = std::countr_zero(BufferCache::kMaxBlock) - kFirstShift + 1;

bool cacheable(size_t capacity) {
  return capacity >= BufferCache::kMinBlock && capacity <= BufferCache::kMaxBlock;
}
int class_of(size_t capacity) { return std::countr_zero(capacity) - kFirstShift; }
}  // namespace

struct BufferCache::SizeClass {
  std::mutex mu;
  std::vector<void*> free;
};

namespace {
std::atomic<size_t> g_cached_bytes{0};

// Each thread keeps its last few freed blocks of up to 1 MiB per class: a pipeline thread that
// frees a morsel's columns and allocates the next morsel's gets the same, still cache-hot
// memory back without touching a lock or a shared cache line. Bounded: at most kLocalSlots
// blocks per class per thread (under 8 MiB a thread), returned to the shared lists at exit.
constexpr size_t kMaxLocalBlock = size_t(1) << 20;
constexpr int kLocalSlots = 4;

void* take_local(int cls);
bool keep_local(int cls, void* block);
}  // namespace

struct LocalBlocks {
  void* slots[kClasses][kLocalSlots] = {};
  int count[kClasses] = {};
  bool exited = false;  ///< set by the destructor: later releases on this thread go shared
  ~LocalBlocks();
};

namespace {
thread_local LocalBlocks t_local;

void* take_local(int cls) {
  int& n = t_local.count[cls];
  return n > 0 ? t_local.slots[cls][--n] : nullptr;
}

bool keep_local(int cls, void* block) {
  int& n = t_local.count[cls];
  if (t_local.exited || n == kLocalSlots) return false;
  t_local.slots[cls][n++] = block;
  return true;
}
}  // namespace

BufferCache& BufferCache::instance() {
  // Deliberately leaked: columns may be released by other static destructors at exit.
  static BufferCache* cache = [] {
    auto* c = new BufferCache();
    c->classes_ = new SizeClass[kClasses];
    return c;
  }();
  return *cache;
}

size_t BufferCache::capacity_for(size_t bytes) {
  size_t padded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (padded == 0) padded = kAlignment;
  if (padded < kMinBlock || padded > kMaxBlock) return padded;
  return std::bit_ceil(padded);
}

void* BufferCache::acquire(size_t bytes) {
  const size_t capacity = capacity_for(bytes);
  if (cacheable(capacity) && capacity <= kMaxLocalBlock) {
    if (void* p = take_local(class_of(capacity))) {
      EMBER_UNPOISON(p, capacity);
      return p;
    }
  }
  if (cacheable(capacity)) {
    SizeClass& c = classes_[class_of(capacity)];
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(c.mu);
      if (!c.free.empty()) {
        p = c.free.back();
        c.free.pop_back();
      }
    }
    if (p != nullptr) {
      g_cached_bytes.fetch_sub(capacity, std::memory_order_relaxed);
      EMBER_UNPOISON(p, capacity);
      return p;
    }
  }
  void* p = std::aligned_alloc(kAlignment, capacity);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void BufferCache::release(void* block, size_t bytes) {
  const size_t capacity = capacity_for(bytes);
  if (cacheable(capacity) && capacity <= kMaxLocalBlock) {
    EMBER_POISON(block, capacity);
    if (keep_local(class_of(capacity), block)) return;
    EMBER_UNPOISON(block, capacity);
  }
  release_shared(block, capacity);
}

void BufferCache::release_shared(void* block, size_t capacity) {
  if (cacheable(capacity)) {
    // Reserve budget first so concurrent releases never overshoot the bound.
    size_t held = g_cached_bytes.fetch_add(capacity, std::memory_order_relaxed);
    if (held + capacity <= kMaxCachedBytes) {
      SizeClass& c = classes_[class_of(capacity)];
      EMBER_POISON(block, capacity);
      try {
        std::lock_guard<std::mutex> lock(c.mu);
        c.free.push_back(block);
        return;
      } catch (const std::bad_alloc&) {
        EMBER_UNPOISON(block, capacity);  // no room to remember it: fall through and free
      }
    }
    g_cached_bytes.fetch_sub(capacity, std::memory_order_relaxed);
  }
  std::free(block);
}

LocalBlocks::~LocalBlocks() {
  exited = true;
  for (int cls = 0; cls < kClasses; ++cls) {
    const size_t capacity = BufferCache::kMinBlock << cls;
    while (count[cls] > 0) {
      void* block = slots[cls][--count[cls]];
      EMBER_UNPOISON(block, capacity);
      BufferCache::instance().release_shared(block, capacity);
    }
  }
}

size_t BufferCache::cached_bytes() const { return g_cached_bytes.load(std::memory_order_relaxed); }

}  // namespace ember
