// In-memory collection with an optional global, order-respecting row limit.
#include "exec/collect_sink.h"

namespace ember {

class CollectSink::Part : public PartitionSink {
 public:
  Part(CollectSink& owner, int partition) : owner_(owner), partition_(partition) {}
  void consume(const Batch& batch) override {
    if (batch.num_rows() == 0) return;
    Batch b = batch;
    if (owner_.limit_ >= 0) {
      int64_t room = owner_.limit_ - rows_;
      if (room <= 0) return;
      if (b.num_rows() > room) b = b.slice(0, room);
    }
    rows_ += b.num_rows();
    std::lock_guard<std::mutex> lock(owner_.mu_);
    owner_.parts_[partition_].push_back(std::move(b));
    owner_.rows_[partition_] = rows_;
  }
  void finish() override { owner_.partition_finished(partition_); }
  bool full() const override { return owner_.limit_ >= 0 && rows_ >= owner_.limit_; }

 private:
  CollectSink& owner_;
  int partition_;
  int64_t rows_ = 0;
};

CollectSink::CollectSink(int num_partitions, int64_t limit)
    : limit_(limit),
      parts_(static_cast<size_t>(num_partitions)),
      rows_(static_cast<size_t>(num_partitions), 0),
      finished_(static_cast<size_t>(num_partitions), false) {
  if (limit_ == 0) satisfied_ = true;
}

std::unique_ptr<PartitionSink> CollectSink::open(int partition) {
  return std::make_unique<Part>(*this, partition);
}

void CollectSink::partition_finished(int partition) {
  std::lock_guard<std::mutex> lock(mu_);
  finished_[static_cast<size_t>(partition)] = true;
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

std::vector<std::vector<Batch>> CollectSink::take_partitions() {
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

}  // namespace ember
