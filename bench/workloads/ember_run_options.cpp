// Resource overrides for sweeps beyond the machine's CPUs.
#include <unistd.h>

#include <thread>

#include "ember_workloads.h"

namespace bench {

ember::RunOptions run_options_for(int actors, std::string& notes) {
  ember::RunOptions run;
  const int cpus = static_cast<int>(std::thread::hardware_concurrency());
  if (actors > cpus) {
    const int64_t memory = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
    run.resources = ember::Resources{static_cast<double>(actors), 0, memory};
    notes += "RunOptions.resources overridden to " + std::to_string(actors) +
             " CPUs (machine has " + std::to_string(cpus) + ") so that " + std::to_string(actors) +
             " actors are admitted; ";
  }
  return run;
}

}  // namespace bench
