// DataFrame::explain(): plans, actor pools and the resource budget.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "exec/executor.h"
#include "exec/physical_plan.h"
#include "plan/optimizer.h"
#include "resources/resource_pool.h"

namespace ember {

namespace {

std::string human_bytes(int64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string explain_plan(const NodePtr& plan, const RunOptions& options) {
  NodePtr optimized = optimize(plan);
  PhysicalPlan physical = plan_physical(*optimized);
  std::ostringstream out;
  out << "== Logical plan ==\n" << to_string(*plan);
  out << "== Optimized plan ==\n" << to_string(*optimized);
  out << "== Actor pools ==\n";
  double cpus = 0, gpus = 0;
  int64_t memory = 0;
  if (physical.pools.empty()) out << "  (none)\n";
  for (const auto& spec : physical.pools) {
    out << "  " << spec->name << ": concurrency " << spec->concurrency << ", batch size "
        << spec->batch_size << ", per actor " << number(spec->num_cpus) << " CPU, "
        << number(spec->num_gpus) << " GPU, " << human_bytes(spec->memory_bytes)
        << " memory, isolation "
        << (spec->isolation == Isolation::Process ? "process" : "thread")
        << ", max_retries " << spec->max_retries << "\n";
    cpus += spec->concurrency * spec->num_cpus;
    gpus += spec->concurrency * spec->num_gpus;
    memory += spec->concurrency * spec->memory_bytes;
  }
  auto pool = ResourcePool::for_run(options.resources);
  const Resources& total = pool->total();
  double left = std::max(0.0, total.cpus - cpus);
  int threads = options.threads > 0 ? options.threads
                                    : std::max(1, static_cast<int>(std::floor(left + 1e-9)));
  out << "== Resources ==\n  " << pool->describe() << "\n";
  out << "  pools ask for: " << number(cpus) << " CPUs, " << number(gpus) << " GPUs, "
      << human_bytes(memory) << "\n";
  out << "  left for ordinary work: " << number(left) << " CPUs -> " << threads
      << " pipeline thread" << (threads == 1 ? "" : "s") << "\n";
  return out.str();
}

}  // namespace ember
