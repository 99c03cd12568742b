// JSON rendering of a digest; doubles keep all 17 significant digits.
#include "result_digest.h"

#include <cstdio>

namespace bench {

std::string ResultDigest::to_json() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "{\"rows\": %lld, \"key_sum\": %lld, \"aux_sum\": %lld, \"value_sum\": %.17g, "
                "\"weighted_sum\": %.17g}",
                static_cast<long long>(rows), static_cast<long long>(key_sum),
                static_cast<long long>(aux_sum), value_sum, weighted_sum);
  return buf;
}

}  // namespace bench
