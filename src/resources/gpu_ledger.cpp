// Per-device GPU accounting: each device offers one whole GPU that fractional requests share.
#include "resources/gpu_ledger.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "resources/resource_units.h"

namespace ember {

int64_t GpuLedger::units_for_share(double gpus) {
  auto units = static_cast<int64_t>(std::llround(gpus * static_cast<double>(kUnitsPerDevice)));
  return std::clamp<int64_t>(units, 1, kUnitsPerDevice);
}

double GpuLedger::free_gpus() const {
  int64_t sum = 0;
  for (int64_t f : free_) sum += f;
  return static_cast<double>(sum) / static_cast<double>(kUnitsPerDevice);
}

std::optional<std::vector<int>> GpuLedger::take_whole(int count) {
  std::vector<int> taken;
  for (int d = 0; d < devices() && static_cast<int>(taken.size()) < count; ++d)
    if (free_units(d) == kUnitsPerDevice) taken.push_back(d);
  if (static_cast<int>(taken.size()) < count) return std::nullopt;
  for (int d : taken) free_[static_cast<size_t>(d)] = 0;
  return taken;
}

std::optional<int> GpuLedger::take_share(int64_t units) {
  int best = -1;
  for (int d = 0; d < devices(); ++d) {
    int64_t f = free_units(d);
    if (f >= units && (best < 0 || f < free_units(best))) best = d;
  }
  if (best < 0) return std::nullopt;
  free_[static_cast<size_t>(best)] -= units;
  return best;
}

void GpuLedger::give_back(int device, int64_t units) {
  auto& f = free_[static_cast<size_t>(device)];
  f += units;
  assert(f <= kUnitsPerDevice && "a device got back more share than it has");
}

std::string GpuLedger::describe_free(const std::vector<int>& device_ids) const {
  std::string out;
  for (int d = 0; d < devices(); ++d) {
    if (!out.empty()) out += ", ";
    out += "gpu" + std::to_string(device_ids[static_cast<size_t>(d)]) + " " +
           format_amount(static_cast<double>(free_units(d)) / kUnitsPerDevice);
  }
  return out.empty() ? "no devices" : out;
}

}  // namespace ember
