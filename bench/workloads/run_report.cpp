// Printing a runner's report as JSON.
#include "run_report.h"

#include <cstdio>

namespace bench {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

}  // namespace

void RunReport::print() const {
  std::string t;
  for (double s : times) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%.6f", t.empty() ? "" : ", ", s);
    t += buf;
  }
  std::printf("{\"system\": %s, \"workload\": %s, \"times\": [%s], \"check\": %s, \"notes\": %s}\n",
              quoted(system).c_str(), quoted(workload).c_str(), t.c_str(), check.c_str(),
              quoted(notes).c_str());
  std::fflush(stdout);
}

}  // namespace bench
