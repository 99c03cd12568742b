// Every UDF class of the cluster app, registered once: every rank finds them by name.
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

}  // namespace cluster_app
