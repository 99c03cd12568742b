// In-memory partitions with an optional global, order-respecting row limit.
#include "exec/sinks/collected_partitions.h"

namespace ember {

CollectedPartitions::CollectedPartitions(int num_partitions, int64_t limit)
    : limit_(limit),
      parts_(static_cast<size_t>(num_partitions)),
      rows_(static_cast<size_t>(num_partitions), 0),
      finished_(static_cast<size_t>(num_partitions), false) {
  if (limit_ == 0) satisfied_ = true;
}

void CollectedPartitions::append(Partition& part, const Batch& batch) {
  if (batch.num_rows() == 0) return;
  Batch b = batch;
  if (limit_ >= 0) {
    int64_t room = limit_ - part.rows;
    if (room <= 0) return;
    if (b.num_rows() > room) b = b.slice(0, room);
  }
  part.rows += b.num_rows();
  std::lock_guard<std::mutex> lock(mu_);
  parts_[static_cast<size_t>(part.index)].push_back(std::move(b));
  rows_[static_cast<size_t>(part.index)] = part.rows;
}

void CollectedPartitions::finish(const Partition& part) {
  std::lock_guard<std::mutex> lock(mu_);
  finished_[static_cast<size_t>(part.index)] = true;
  if (limit_ < 0) return;
  // The limit is met once a prefix of finished partitions holds enough rows.
  int64_t total = 0;
  for (size_t p = 0; p < finished_.size() && finished_[p]; ++p) {
    total += rows_[p];
    if (total >= limit_) {
      satisfied_ = true;
      return;
    }
  }
}

std::vector<std::vector<Batch>> CollectedPartitions::take() {
  std::lock_guard<std::mutex> lock(mu_);
  if (limit_ >= 0) {
    int64_t room = limit_;
    for (auto& part : parts_) {
      std::vector<Batch> kept;
      for (auto& b : part) {
        if (room <= 0) break;
        kept.push_back(b.num_rows() > room ? b.slice(0, room) : b);
        room -= kept.back().num_rows();
      }
      part = std::move(kept);
    }
  }
  return std::move(parts_);
}

std::vector<Batch> CollectedPartitions::take_all() {
  std::vector<Batch> all;
  for (auto& part : take())
    for (auto& b : part) all.push_back(std::move(b));
  return all;
}

}  // namespace ember
