// Every UDF class and function of the cluster app, registered once: every rank finds them by
// name.
#include "udfs.h"

namespace cluster_app {

EMBER_REGISTER_UDF(Triple);
EMBER_REGISTER_UDF(Picky);
EMBER_REGISTER_UDF(HalfLength);
EMBER_REGISTER_UDF(GpuCount);
EMBER_REGISTER_UDF(Napper);
EMBER_REGISTER_UDF(Dawdler);
EMBER_REGISTER_UDF(Straggler);
EMBER_REGISTER_UDF(Doomed);

ember::Column quintuple(const ember::Batch& in) {
  const ember::Column& x = in.column(0);
  std::vector<int64_t> out;
  for (int64_t i = 0; i < in.num_rows(); ++i) out.push_back(x.value<int64_t>(i) * 5);
  return ember::Column::from(std::move(out));
}
EMBER_REGISTER_FN(quintuple);

}  // namespace cluster_app
