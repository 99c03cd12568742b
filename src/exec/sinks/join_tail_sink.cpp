// Right/full join tail: the probe output unchanged, plus the unmatched build rows.
#include "exec/sinks/join_tail_sink.h"

#include "exec/relational/column_gather.h"
#include "exec/sinks/collected_partitions.h"
#include "exec/sources/table_source.h"

namespace ember {

namespace {
using Part = CollectedPartitions::Partition;
}

std::unique_ptr<GlobalSinkState> JoinTailSink::global_state(int num_partitions) const {
  return std::make_unique<CollectedPartitions>(num_partitions, -1);
}

std::unique_ptr<LocalSinkState> JoinTailSink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<Part>(partition);
}

void JoinTailSink::sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const {
  global.as<CollectedPartitions>().append(local.as<Part>(), batch);
}

void JoinTailSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  global.as<CollectedPartitions>().finish(local.as<Part>());
}

std::shared_ptr<const Source> JoinTailSink::finalize(GlobalSinkState& global) const {
  std::vector<std::vector<Batch>> parts = global.as<CollectedPartitions>().take();
  const std::vector<int64_t> rows = table_->unmatched_rows();
  const Batch& build = table_->rows();
  std::vector<Column> out;
  for (int c = 0; c < layout_.left_columns; ++c) {
    const Field& f = layout_.output.field(c);
    Column col = Column::nulls(f.type, static_cast<int64_t>(rows.size()));
    for (size_t k = 0; k < layout_.left_keys.size(); ++k)
      if (layout_.left_keys[k] == c) col = gather(build.column(layout_.right_keys[k]), rows);
    out.push_back(std::move(col));
  }
  for (int c : layout_.right_columns) out.push_back(gather(build.column(c), rows));
  parts.push_back({Batch(layout_.output, std::move(out))});
  return std::make_shared<TableSource>(layout_.output, std::move(parts), "JoinUnmatched");
}

}  // namespace ember
