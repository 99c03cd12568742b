// Many threads admitting and releasing against one pool never over-commit it.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "ember/error.h"
#include "resources/resource_pool.h"

namespace ember {
namespace {

TEST(ConcurrentAdmission, NeverHoldsMoreThanExists) {
  constexpr int kCpus = 4;
  constexpr int kGpus = 2;
  for (int threads = 1; threads <= 8; threads *= 2) {
    ResourcePool pool(Resources{kCpus, kGpus, 1 << 20});
    std::atomic<int> cpus_held{0}, half_gpus_held{0}, admitted{0};
    std::atomic<bool> overcommitted{false};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        for (int i = 0; i < 300; ++i) {
          int actors = 1 + (i + t) % 2;
          try {
            ResourceLease lease = pool.admit({PoolRequest{"w", actors, 1, 0.5, 0}});
            admitted.fetch_add(1);
            if (cpus_held.fetch_add(actors) + actors > kCpus) overcommitted = true;
            if (half_gpus_held.fetch_add(actors) + actors > 2 * kGpus) overcommitted = true;
            std::this_thread::yield();
            cpus_held.fetch_sub(actors);
            half_gpus_held.fetch_sub(actors);
          } catch (const ResourceError&) {
          }
        }
      });
    }
    for (auto& w : workers) w.join();
    EXPECT_FALSE(overcommitted) << threads << " threads";
    EXPECT_GT(admitted.load(), 0);
    // Everything came back: the whole machine is admissible again.
    ResourceLease all = pool.admit({PoolRequest{"all", kCpus, 1, 0.5, 1 << 18}});
    EXPECT_EQ(all.cpus_left(), 0);
  }
}

}  // namespace
}  // namespace ember
