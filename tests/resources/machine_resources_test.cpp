// Detection of the machine's resources and parsing of the GPU environment variables.
#include "resources/machine_resources.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "ember/error.h"
#include "resources/resource_pool.h"

namespace ember {
namespace {

/// Sets (or unsets) an environment variable for the scope of a test, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::vector<int> iota(int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}

TEST(Detection, ReturnsSaneValues) {
  ScopedEnv gpus("EMBER_GPUS", "0");
  Resources r = ResourcePool::detect();
  EXPECT_GE(r.cpus, 1);
  EXPECT_GT(r.memory_bytes, 0);
  EXPECT_EQ(r.gpus, 0);
}

TEST(Detection, EmberGpusCountOrList) {
  {
    ScopedEnv gpus("EMBER_GPUS", "3");
    EXPECT_EQ(detect_gpu_ids(), iota(3));
    EXPECT_EQ(ResourcePool::detect().gpus, 3);
  }
  {
    ScopedEnv gpus("EMBER_GPUS", "0,2");
    ScopedEnv cuda("CUDA_VISIBLE_DEVICES", "5,6,7");  // EMBER_GPUS wins
    EXPECT_EQ(detect_gpu_ids(), (std::vector<int>{0, 2}));
    MachineResources m = detect_machine();
    EXPECT_EQ(m.total.gpus, 2);
    ResourcePool pool(m.total, m.gpu_ids);
    ResourceLease lease = pool.admit({PoolRequest{"g", 2, 0, 1, 0}});
    EXPECT_EQ(lease.pools()[0].actors[0].gpu_ids.at(0) + lease.pools()[0].actors[1].gpu_ids.at(0),
              2);
  }
  {
    ScopedEnv gpus("EMBER_GPUS", "");
    EXPECT_TRUE(detect_gpu_ids().empty());
  }
}

TEST(Detection, EmberGpusOneDeviceIdIsAListWithAComma) {
  // "3" is three GPUs, as a count; "3," is device 3 alone, as CUDA_VISIBLE_DEVICES=3 means.
  ScopedEnv gpus("EMBER_GPUS", "3,");
  EXPECT_EQ(detect_gpu_ids(), (std::vector<int>{3}));
  EXPECT_NE(describe_gpu_source().find("EMBER_GPUS=3, is a list of device ids: 3"),
            std::string::npos)
      << describe_gpu_source();
}

TEST(Detection, DescribeGpuSourceSaysWhichFormItRead) {
  {
    ScopedEnv gpus("EMBER_GPUS", "3");
    EXPECT_NE(describe_gpu_source().find("EMBER_GPUS=3 is a count: devices 0,1,2"),
              std::string::npos)
        << describe_gpu_source();
  }
  {
    ScopedEnv gpus("EMBER_GPUS", std::nullopt);
    ScopedEnv cuda("CUDA_VISIBLE_DEVICES", "3");
    EXPECT_NE(describe_gpu_source().find("CUDA_VISIBLE_DEVICES=3 is a list of devices, 1 visible"),
              std::string::npos)
        << describe_gpu_source();
  }
}

TEST(Detection, EmberGpusRejectsGarbage) {
  for (const char* bad :
       {"two", "1,,2", ",", "3,,", "0,0", "-1", "1,-2", "3x", "4097", "2000000000"}) {
    ScopedEnv gpus("EMBER_GPUS", bad);
    EXPECT_THROW(detect_gpu_ids(), InvalidArgument) << bad;
  }
}

TEST(Detection, CudaVisibleDevices) {
  ScopedEnv gpus("EMBER_GPUS", std::nullopt);
  {
    ScopedEnv cuda("CUDA_VISIBLE_DEVICES", "");
    EXPECT_TRUE(detect_gpu_ids().empty());
  }
  {
    // CUDA numbers the visible devices 0..n-1 inside the process.
    ScopedEnv cuda("CUDA_VISIBLE_DEVICES", "1,3");
    EXPECT_EQ(detect_gpu_ids(), iota(2));
  }
  EXPECT_EQ(parse_cuda_visible_devices("GPU-8e6b,GPU-1f2a,GPU-77c0"), iota(3));
  EXPECT_EQ(parse_cuda_visible_devices("0,-1,2"), iota(1));
  EXPECT_EQ(parse_cuda_visible_devices(" 4 "), iota(1));
}

TEST(Detection, CpuAndMemoryOverridesWinOverDetection) {
  {
    ScopedEnv cpus("EMBER_CPUS", "6.5");
    ScopedEnv memory("EMBER_MEMORY", "3G");
    EXPECT_EQ(detect_cpus(), 6.5);
    EXPECT_EQ(detect_memory_bytes(), int64_t{3} << 30);
    const MachineResources m = detect_machine();
    EXPECT_EQ(m.total.cpus, 6.5);
    EXPECT_EQ(m.total.memory_bytes, int64_t{3} << 30);
  }
  EXPECT_EQ(parse_ember_cpus(" 4 "), 4.0);
  EXPECT_EQ(parse_ember_memory("1048576"), 1048576);
  EXPECT_EQ(parse_ember_memory("512MiB"), int64_t{512} << 20);
  EXPECT_EQ(parse_ember_memory("2K"), 2048);
  EXPECT_EQ(parse_ember_memory("0"), 0);
}

TEST(Detection, RefusesMalformedCpuAndMemoryOverrides) {
  for (const char* bad : {"", "0", "-1", "two", "nan", "inf", "2000000"}) {
    EXPECT_THROW(parse_ember_cpus(bad), InvalidArgument) << bad;
  }
  for (const char* bad : {"", "-1", "1.5G", "8T", "G", "99999999999G"}) {
    EXPECT_THROW(parse_ember_memory(bad), InvalidArgument) << bad;
  }
  try {
    parse_ember_cpus("lots");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("EMBER_CPUS='lots'"), std::string::npos) << e.what();
  }
}

TEST(Detection, CountsGpuLinesOfNvidiaSmi) {
  // A stand-in nvidia-smi first on PATH; the real one (if any) is never run.
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ember_fake_smi_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream script(dir / "nvidia-smi");
    script << "#!/bin/sh\n"
              "echo 'GPU 0: NVIDIA H200 (UUID: GPU-aaaa)'\n"
              "echo '  MIG 1g.18gb Device 0: (UUID: MIG-bbbb)'\n"
              "echo 'GPU 1: NVIDIA H200 (UUID: GPU-cccc)'\n";
  }
  fs::permissions(dir / "nvidia-smi", fs::perms::owner_all);
  const char* path = std::getenv("PATH");
  ScopedEnv ember_gpus("EMBER_GPUS", std::nullopt);
  ScopedEnv cuda("CUDA_VISIBLE_DEVICES", std::nullopt);
  ScopedEnv new_path("PATH", dir.string() + ":" + (path ? path : "/usr/bin:/bin"));
  EXPECT_EQ(detect_gpu_ids(), iota(2));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ember
