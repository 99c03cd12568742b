// Serves in-memory partitions as zero-copy slices.
#include "exec/sources/table_source.h"

#include "ember/error.h"

namespace ember {

namespace {

class TableReader : public BatchReader {
 public:
  TableReader(const std::vector<Batch>& batches, int64_t batch_rows)
      : batches_(batches), batch_rows_(batch_rows) {}
  std::optional<Batch> next() override {
    while (index_ < batches_.size()) {
      const Batch& b = batches_[index_];
      if (offset_ < b.num_rows()) {
        int64_t n = std::min(batch_rows_, b.num_rows() - offset_);
        Batch out = b.slice(offset_, n);
        offset_ += n;
        return out;
      }
      ++index_;
      offset_ = 0;
    }
    return std::nullopt;
  }

 private:
  const std::vector<Batch>& batches_;
  int64_t batch_rows_;
  size_t index_ = 0;
  int64_t offset_ = 0;
};

/// Rows [begin, end) of the table as slices of its batches.
std::vector<Batch> row_range(const Table& t, int64_t begin, int64_t end) {
  std::vector<Batch> out;
  int64_t start = 0;
  for (const auto& b : t.batches()) {
    int64_t stop = start + b.num_rows();
    int64_t lo = std::max(begin, start), hi = std::min(end, stop);
    if (lo < hi) out.push_back(b.slice(lo - start, hi - lo));
    start = stop;
  }
  return out;
}

}  // namespace

TableSource::TableSource(const Table& table, int num_partitions, std::string label)
    : schema_(table.schema()), label_(std::move(label)), rows_(table.num_rows()) {
  if (num_partitions < 1)
    throw InvalidArgument("num_partitions must be >= 1, got " + std::to_string(num_partitions));
  for (int p = 0; p < num_partitions; ++p) {
    int64_t begin = rows_ * p / num_partitions, end = rows_ * (p + 1) / num_partitions;
    parts_.push_back(row_range(table, begin, end));
  }
}

TableSource::TableSource(Schema schema, std::vector<std::vector<Batch>> partitions,
                         std::string label)
    : schema_(std::move(schema)), parts_(std::move(partitions)), label_(std::move(label)) {
  if (parts_.empty()) parts_.emplace_back();
  for (const auto& p : parts_)
    for (const auto& b : p) rows_ += b.num_rows();
}

std::unique_ptr<BatchReader> TableSource::open(int p, int64_t batch_rows) const {
  return std::make_unique<TableReader>(parts_.at(static_cast<size_t>(p)), batch_rows);
}

std::string TableSource::describe() const {
  return label_ + " (" + std::to_string(rows_) + " rows, " + std::to_string(parts_.size()) +
         " partitions)";
}

}  // namespace ember
