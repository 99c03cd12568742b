// MergeSource: hands its runs to one streaming merge reader.
#include "exec/sources/merge_source.h"

#include "ember/error.h"

namespace ember {

MergeSource::MergeSource(Schema schema, std::vector<std::unique_ptr<RunChunks>> runs,
                         std::vector<KeyOrder> order, int64_t rows, std::string label)
    : schema_(std::move(schema)),
      order_(std::move(order)),
      rows_(rows),
      num_runs_(runs.size()),
      label_(std::move(label)),
      runs_(std::move(runs)) {}

std::unique_ptr<BatchReader> MergeSource::open(int p, int64_t batch_rows) const {
  if (p != 0)
    throw InvalidArgument(label_ + ": merged runs have 1 partition, asked for " +
                          std::to_string(p));
  std::lock_guard lock(mu_);
  if (opened_) throw Error(label_ + ": merged runs can be read once");
  opened_ = true;
  return std::make_unique<RunMergeReader>(std::move(runs_), order_, batch_rows);
}

std::string MergeSource::describe() const {
  return label_ + " (" + std::to_string(rows_) + " rows merged from " + std::to_string(num_runs_) +
         " runs, 1 partition)";
}

}  // namespace ember
