// The installed spreader, shared by every query.
#include "exec/partition_spreading.h"

#include <mutex>

namespace ember {

namespace {

struct Installed {
  std::mutex mu;
  std::shared_ptr<PartitionSpreader> spreader;  // guarded by mu
};

Installed& installed() {
  static Installed s;
  return s;
}

}  // namespace

void install_partition_spreader(std::shared_ptr<PartitionSpreader> spreader) {
  std::lock_guard lock(installed().mu);
  installed().spreader = std::move(spreader);
}

std::shared_ptr<PartitionSpreader> partition_spreader() {
  std::lock_guard lock(installed().mu);
  return installed().spreader;
}

}  // namespace ember
