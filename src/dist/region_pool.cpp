// A small free list of mapped blocks; blocks below 1 MiB are not worth keeping.
#include "dist/region_pool.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "ember/error.h"

namespace ember::dist {

namespace {

constexpr size_t kMinPooled = size_t{1} << 20;
/// Enough for every batch in flight of a few actors, but never more than 256 MiB held idle.
constexpr size_t kMaxKept = 16;
constexpr size_t kMaxKeptBytes = size_t{256} << 20;

struct Pool {
  std::mutex mu;
  std::vector<process::SharedMapping*> free;  // guarded by mu; owned
  size_t free_bytes = 0;                      // guarded by mu
};

/// Never destroyed: a block may come back while the process exits.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

void give_back(process::SharedMapping* block) {
  if (block->size() >= kMinPooled) {
    std::lock_guard lock(pool().mu);
    if (pool().free.size() < kMaxKept && pool().free_bytes + block->size() <= kMaxKeptBytes) {
      pool().free.push_back(block);
      pool().free_bytes += block->size();
      return;
    }
  }
  delete block;  // unmaps it
}

}  // namespace

std::shared_ptr<process::SharedMapping> take_region(size_t bytes) {
  const size_t size = process::region_size_for(bytes);
  {
    std::lock_guard lock(pool().mu);
    auto& free = pool().free;
    for (size_t i = 0; i < free.size(); ++i) {
      if (free[i]->size() >= bytes && free[i]->size() <= 2 * size) {
        process::SharedMapping* block = free[i];
        free.erase(free.begin() + static_cast<std::ptrdiff_t>(i));
        pool().free_bytes -= block->size();
        return std::shared_ptr<process::SharedMapping>(block, give_back);
      }
    }
  }
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) {
    throw Error("distributed runner: cannot map " + std::to_string(size) +
                " bytes for a message: " + std::strerror(errno));
  }
  return std::shared_ptr<process::SharedMapping>(
      new process::SharedMapping(static_cast<uint8_t*>(p), size), give_back);
}

}  // namespace ember::dist
