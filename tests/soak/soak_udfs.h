// The UDFs the soak drives: one that crashes its worker at random, one that is slow enough for
// a writer to be killed in the middle of a query.
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "ember/ember.h"

namespace ember::soak {

/// id + 1, but each call first kills its worker process with probability
/// `crash_per_mille` / 1000 (abort without a core file: the crash is the point).
class FlakyIncrement {
 public:
  explicit FlakyIncrement(const InitArgs& a)
      : crash_per_mille_(a.get<int64_t>("crash_per_mille")), rng_(std::random_device{}()) {}

  Column operator()(const Batch& in) {
    if (std::uniform_int_distribution<int64_t>(0, 999)(rng_) < crash_per_mille_) {
      const rlimit none{0, 0};
      ::setrlimit(RLIMIT_CORE, &none);
      std::abort();
    }
    const Column& x = in.column(0);
    std::vector<int64_t> out(static_cast<size_t>(x.size()));
    for (int64_t i = 0; i < x.size(); ++i) out[static_cast<size_t>(i)] = x.value<int64_t>(i) + 1;
    return Column::from(std::move(out));
  }

 private:
  int64_t crash_per_mille_;
  std::mt19937_64 rng_;
};

/// id + 1 after sleeping `sleep_us` per call: keeps a write in flight long enough to be killed.
class SlowIncrement {
 public:
  explicit SlowIncrement(const InitArgs& a) : sleep_us_(a.get<int64_t>("sleep_us")) {}

  Column operator()(const Batch& in) {
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    const Column& x = in.column(0);
    std::vector<int64_t> out(static_cast<size_t>(x.size()));
    for (int64_t i = 0; i < x.size(); ++i) out[static_cast<size_t>(i)] = x.value<int64_t>(i) + 1;
    return Column::from(std::move(out));
  }

 private:
  int64_t sleep_us_;
};

}  // namespace ember::soak
