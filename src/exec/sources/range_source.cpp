// Generates id batches directly into int64 buffers.
#include "exec/sources/range_source.h"

#include <algorithm>

#include "core/buffer_access.h"
#include "core/sequence.h"
#include "ember/error.h"

namespace ember {

namespace {

// Ids per batch, whatever the morsel size asked for: generating them costs little more than
// writing them, and 64 KiB of ids are still in cache when the operators read them.
constexpr int64_t kRangeBatchRows = 8 * 1024;

class RangeReader : public BatchReader {
 public:
  RangeReader(Schema schema, int64_t begin, int64_t end, int64_t batch_rows)
      : schema_(std::move(schema)), next_(begin), end_(end), batch_rows_(batch_rows) {}
  std::optional<Batch> next() override {
    if (next_ >= end_) return std::nullopt;
    const int64_t n = std::min({batch_rows_, kRangeBatchRows, end_ - next_});
    auto values =
        detail::BufferAccess::allocate_uninitialized(n * static_cast<int64_t>(sizeof(int64_t)));
    auto* v = reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*values));
    fill_sequence(next_, v, n);
    next_ += n;
    return Batch(schema_, {Column::from_buffers(int64(), n, 0, nullptr, values)});
  }

 private:
  Schema schema_;
  int64_t next_, end_, batch_rows_;
};

}  // namespace

RangeSource::RangeSource(int64_t n, int num_partitions)
    : n_(n), parts_(num_partitions), schema_({{"id", int64()}}) {
  if (n < 0) throw InvalidArgument("range(" + std::to_string(n) + "): n must be >= 0");
  if (num_partitions < 1)
    throw InvalidArgument("range: num_partitions must be >= 1, got " +
                          std::to_string(num_partitions));
}

std::unique_ptr<BatchReader> RangeSource::open(int p, int64_t batch_rows) const {
  int64_t begin = n_ * p / parts_, end = n_ * (p + 1) / parts_;
  return std::make_unique<RangeReader>(schema_, begin, end, batch_rows);
}

std::string RangeSource::describe() const {
  return "Range 0.." + std::to_string(n_) + " (" + std::to_string(parts_) + " partitions)";
}

}  // namespace ember
