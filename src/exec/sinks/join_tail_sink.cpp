// Right/full join tail: the probe output unchanged, plus the unmatched build rows.
#include "exec/sinks/join_tail_sink.h"

#include <mutex>
#include <vector>

#include "exec/sinks/collected_partitions.h"
#include "exec/sources/table_source.h"
#include "plan/nodes/join_node.h"
#include "udf/process/wire_message.h"

namespace ember {

namespace {

using Part = CollectedPartitions::Partition;

/// The probe partitions' rows, and which build rows this rank has told another that its probes
/// matched (encode_partial sends only what is new).
struct TailState final : GlobalSinkState {
  explicit TailState(int num_partitions) : collected(num_partitions, -1) {}
  CollectedPartitions collected;
  std::mutex mu;
  std::vector<uint8_t> reported;  // guarded by mu; one flag per build row once sized
};

}  // namespace

std::unique_ptr<GlobalSinkState> JoinTailSink::global_state(int num_partitions) const {
  return std::make_unique<TailState>(num_partitions);
}

std::unique_ptr<LocalSinkState> JoinTailSink::local_state(GlobalSinkState&, int partition) const {
  return std::make_unique<Part>(partition);
}

void JoinTailSink::sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const {
  global.as<TailState>().collected.append(local.as<Part>(), batch);
}

void JoinTailSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  global.as<TailState>().collected.finish(local.as<Part>());
}

std::string JoinTailSink::encode_partial(GlobalSinkState& global, LocalSinkState&) const {
  // The build side's size, then the rows matched here that no earlier partition's end sent.
  // A row another partition still probing matched may go now too: the receiver only ORs.
  auto& tail = global.as<TailState>();
  const int64_t n = table_->rows().num_rows();
  process::MessageWriter out;
  out.put(n);
  std::lock_guard lock(tail.mu);
  tail.reported.resize(static_cast<size_t>(n), 0);
  for (int64_t r = 0; r < n; ++r) {
    if (tail.reported[static_cast<size_t>(r)] || !table_->matched(r)) continue;
    tail.reported[static_cast<size_t>(r)] = 1;
    out.put(r);
  }
  return out.bytes();
}

void JoinTailSink::adopt_partial(GlobalSinkState&, LocalSinkState&, std::string_view bytes) const {
  auto in = process::MessageReader::unframed(bytes);
  const auto n = in.get<int64_t>();
  const int64_t here = table_->rows().num_rows();
  if (n != here)
    throw Error("distributed runner: the right side of a " +
                std::string(join_type_name(layout_.type)) + " join has " + std::to_string(n) +
                " rows on another rank and " + std::to_string(here) +
                " on rank 0; every rank must see the same files");
  while (in.remaining() > 0) {
    const auto row = in.get<int64_t>();
    if (row < 0 || row >= here) throw Error("distributed runner: a matched right row out of range");
    table_->mark_matched(row);
  }
}

std::shared_ptr<const Source> JoinTailSink::finalize(GlobalSinkState& global) const {
  std::vector<std::vector<Batch>> parts = global.as<TailState>().collected.take();
  parts.push_back({unmatched_build_rows(*table_, layout_)});
  return std::make_shared<TableSource>(layout_.output, std::move(parts), "JoinUnmatched");
}

}  // namespace ember
