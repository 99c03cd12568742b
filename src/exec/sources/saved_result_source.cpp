// SavedResultSource: a partition is a run of record batches of the saved file.
#include "exec/sources/saved_result_source.h"

#include "ember/error.h"

namespace ember {
namespace {

/// Record batches [first, end) of a scan, one after the other.
class RecordBatchRunReader final : public BatchReader {
 public:
  RecordBatchRunReader(const ArrowScan& scan, int64_t first, int64_t end, int64_t batch_rows)
      : scan_(scan), next_(first), end_(end), batch_rows_(batch_rows) {}
  std::optional<Batch> next() override {
    while (true) {
      if (current_)
        if (std::optional<Batch> b = current_->next()) return b;
      if (next_ == end_) return std::nullopt;
      current_ = open_arrow_part(scan_, static_cast<int>(next_++), batch_rows_);
    }
  }

 private:
  const ArrowScan& scan_;
  int64_t next_, end_, batch_rows_;
  std::unique_ptr<BatchReader> current_;
};

}  // namespace

SavedResultSource::SavedResultSource(std::string path, std::vector<int64_t> batches,
                                     std::string label)
    : path_(std::move(path)), batches_(std::move(batches)), label_(std::move(label)) {
  scan_ = plan_arrow_scan(path_);
  int64_t total = 0;
  for (int64_t n : batches_) {
    first_.push_back(total);
    total += n;
  }
  if (total != static_cast<int64_t>(scan_.parts.size()))
    throw IoError("saved breaker result '" + path_ + "' holds " +
                  std::to_string(scan_.parts.size()) + " record batches, but its journal names " +
                  std::to_string(total) +
                  "; rerun with RunOptions::discard_unfinished to start the write over");
}

std::unique_ptr<BatchReader> SavedResultSource::open(int p, int64_t batch_rows) const {
  const auto i = static_cast<size_t>(p);
  return std::make_unique<RecordBatchRunReader>(scan_, first_.at(i), first_.at(i) + batches_.at(i),
                                                batch_rows);
}

std::string SavedResultSource::describe() const {
  return label_ + " saved by an earlier run (" + path_ + ", " + std::to_string(batches_.size()) +
         " partitions)";
}

}  // namespace ember
