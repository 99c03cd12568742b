// A one-line summary of a query's UDF figures, for a runner's notes.
#pragma once

#include <cstdio>
#include <string>

#include "ember/ember.h"

namespace bench {

/// "udf NAME: A actors, I inits (init S s), busy B s of wall W s" for every UDF of `stats`.
inline std::string udf_stats_note(const ember::QueryStats& stats) {
  std::string out;
  for (const ember::UdfStats& u : stats.udfs) {
    char buf[256];
    std::snprintf(
        buf, sizeof buf,
        "udf %s: %d actors, %lld inits (init %.3f s), %lld batches, busy %.3f s of wall %.3f s; ",
        u.name.c_str(), u.actors, static_cast<long long>(u.inits), u.init_seconds,
        static_cast<long long>(u.batches), u.busy_seconds, stats.wall_seconds);
    out += buf;
  }
  return out;
}

}  // namespace bench
