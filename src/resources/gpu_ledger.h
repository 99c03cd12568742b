// Per-device GPU accounting: each device offers one whole GPU that fractional requests share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ember {

/// Free share of every device, in integer units so that sums never drift (0.1 x 10 is exactly
/// one device). A plain value: admission places onto a copy and commits by assignment.
class GpuLedger {
 public:
  /// Units in one whole device.
  static constexpr int64_t kUnitsPerDevice = 1'000'000;

  GpuLedger() = default;
  explicit GpuLedger(int devices) : free_(static_cast<size_t>(devices), kUnitsPerDevice) {}

  /// Units a per-actor request of `gpus` (a fraction in (0,1)) occupies; at least one unit.
  static int64_t units_for_share(double gpus);

  int devices() const { return static_cast<int>(free_.size()); }
  int64_t free_units(int device) const { return free_[static_cast<size_t>(device)]; }
  /// Whole GPUs' worth of free share over all devices.
  double free_gpus() const;
  /// Whole GPUs' worth of share held on all devices.
  double held_gpus() const { return devices() - free_gpus(); }

  /// Takes `count` devices with nothing held on them, lowest index first. Returns their
  /// indices, or nullopt (and takes nothing) if fewer are wholly free.
  std::optional<std::vector<int>> take_whole(int count);
  /// Takes `units` from the device with the least free share that still fits (best fit, so
  /// fractional actors pack onto as few devices as possible). nullopt if no device fits.
  std::optional<int> take_share(int64_t units);
  /// Returns `units` taken from `device`.
  void give_back(int device, int64_t units);

  /// "gpu0 0.5, gpu2 1" using the device ids the indices stand for.
  std::string describe_free(const std::vector<int>& device_ids) const;

 private:
  std::vector<int64_t> free_;
};

}  // namespace ember
