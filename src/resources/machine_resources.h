// Detecting what this machine (or container) offers: CPUs, memory and GPU devices.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ember/run_options.h"

namespace ember {

/// What detection found, with the device ids behind the GPU count.
struct MachineResources {
  Resources total;
  std::vector<int> gpu_ids;
};

/// CPUs, memory and GPUs of this process's machine, as limited by its container.
MachineResources detect_machine();

/// EMBER_CPUS if set, else min(CPUs in the affinity mask, cgroup v2 cpu.max or v1 cfs quota /
/// period), at least 1.
double detect_cpus();
/// EMBER_MEMORY if set, else the tightest cgroup memory limit (v2 memory.max, v1
/// memory.limit_in_bytes) or MemTotal.
int64_t detect_memory_bytes();
/// EMBER_GPUS, else CUDA_VISIBLE_DEVICES, else `nvidia-smi -L`, else none.
std::vector<int> detect_gpu_ids();

/// Where the GPUs come from and how the setting reads, for explain(): "EMBER_GPUS=3 is a
/// count: devices 0,1,2 ...". Throws InvalidArgument as parse_ember_gpus does.
std::string describe_gpu_source();

/// EMBER_GPUS: a count ("4" -> 0..3) or a list of device ids, which has a comma ("0,2"; "3,"
/// is device 3 alone); "" is none.
/// Throws InvalidArgument on anything else.
std::vector<int> parse_ember_gpus(std::string_view text);
/// EMBER_CPUS: a number of CPUs > 0 ("4", "2.5"). Throws InvalidArgument on anything else.
double parse_ember_cpus(std::string_view text);
/// EMBER_MEMORY: bytes, or a whole number with K, M, G, KiB, MiB or GiB (powers of 1024).
/// Throws InvalidArgument on anything else.
int64_t parse_ember_memory(std::string_view text);
/// CUDA_VISIBLE_DEVICES: a comma list of ids or UUIDs; "" is none. CUDA renumbers the visible
/// devices 0..n-1 inside the process, so those are the ids returned. Like CUDA, entries after
/// a negative id are ignored.
std::vector<int> parse_cuda_visible_devices(std::string_view text);

}  // namespace ember
