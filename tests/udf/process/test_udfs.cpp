// Registers the test UDF classes by name, as a user's binary would.
#include "test_udfs.h"

namespace ember::test {

EMBER_REGISTER_UDF(Probe);
EMBER_REGISTER_UDF(AddOne);
EMBER_REGISTER_UDF(Echo);
EMBER_REGISTER_UDF(Reassemble);
EMBER_REGISTER_UDF(PickSecond);
EMBER_REGISTER_UDF(SwapFields);
EMBER_REGISTER_UDF(Negate);
EMBER_REGISTER_UDF(CrashOnce);
EMBER_REGISTER_UDF(Gate);
EMBER_REGISTER_UDF(AbortAlways);
EMBER_REGISTER_UDF(SegfaultLogging);
EMBER_REGISTER_UDF(FailingInit);
EMBER_REGISTER_UDF(RejectNegative);
EMBER_REGISTER_UDF(Chatty);
EMBER_REGISTER_UDF(Hoarder);
EMBER_REGISTER_UDF(PidFile);
EMBER_REGISTER_UDF(NegateCountingMemfds);
EMBER_REGISTER_UDF(Lagger);
EMBER_REGISTER_UDF(NegateReportingPlace);
EMBER_REGISTER_UDF(KillSelfOnce);

}  // namespace ember::test
