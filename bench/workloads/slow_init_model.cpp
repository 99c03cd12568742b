// The ~200 ms constructor and the light per-row mix.
#include "slow_init_model.h"

#include <chrono>
#include <thread>

EMBER_REGISTER_UDF(bench::SlowInitModel);

namespace bench {

SlowInitModel::SlowInitModel(const ember::InitArgs& args) {
  const int64_t ms = args.has("init_ms") ? args.get<int64_t>("init_ms") : 200;
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

int64_t SlowInitModel::mix(int64_t x) {
  uint64_t z = static_cast<uint64_t>(x) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<int64_t>((z ^ (z >> 31)) & 0xfffff);
}

ember::Column SlowInitModel::operator()(const ember::Batch& args) const {
  const ember::Column& x = args.column(0);
  ember::ColumnBuilder out(ember::int64(), args.num_rows());
  for (int64_t r = 0; r < args.num_rows(); ++r) {
    if (x.is_null(r))
      out.append_null();
    else
      out.append(mix(x.value<int64_t>(r)));
  }
  return out.finish();
}

}  // namespace bench
