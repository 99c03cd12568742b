// Rank 0's side of a write spread by key range (SpreadRun::writes_ranges): waiting for every
// partition's end, sending the splitters and the ranks' ranges of its rows, and taking the
// other ranks' pieces of range 0.
#include <chrono>

#include "core/cancelled.h"
#include "dist/cluster_run_state.h"
#include "dist/range_worker.h"

namespace ember::dist {

bool ClusterRun::wait_partitions_ended() {
  std::unique_lock lock(mu_);
  // A query failed elsewhere (Ctrl-C, say) tells no one here: look again now and then.
  while (!cancelled_ && !query_.cancelled()) {
    if (own_run_ended_ && queue_.empty() && worker_ends_.load() == handed_.load()) return true;
    changed_.wait_for(lock, std::chrono::milliseconds(50));
  }
  return false;
}

std::vector<TaggedRun> ClusterRun::exchange_ranges(
    const Batch& splitters, const std::vector<std::vector<TaggedRun>>& ranges,
    const Schema& schema) {
  const int ranks = transport_.ranks();
  {
    std::lock_guard lock(mu_);
    range_schema_ = schema;
    range_pieces_.assign(static_cast<size_t>(ranks), std::nullopt);
    ranges_in_ = 0;
  }
  const std::string cut = range_message(process::Op::Splitters, id_, -1, {TaggedRun{0, splitters}});
  int expected = 0;
  for (int r = 1; r < ranks; ++r) {
    if (!running_[static_cast<size_t>(r)]) continue;  // every rank runs when writing by range
    ++expected;
    transport_.send(r, kTagQuery, cut);
    const std::vector<TaggedRun>& theirs = ranges.at(static_cast<size_t>(r));
    transport_.send(r, kTagQuery, range_message(process::Op::Range, id_, 0, theirs));
    range_rows_out_ += rows_of(theirs);
  }
  std::unique_lock lock(mu_);
  while (ranges_in_ < expected) {
    if (cancelled_ || query_.cancelled()) throw Cancelled("the query ended");
    changed_.wait_for(lock, std::chrono::milliseconds(50));
  }
  std::vector<TaggedRun> out;
  for (int r = 1; r < ranks; ++r) {
    std::optional<std::vector<TaggedRun>>& piece = range_pieces_[static_cast<size_t>(r)];
    if (!piece) continue;
    range_rows_in_ += rows_of(*piece);
    for (TaggedRun& run : *piece) out.push_back(std::move(run));
  }
  return out;
}

void ClusterRun::take_range(int r, process::MessageReader& in) {
  in.get<int32_t>();  // the sender's rank, which its key says already
  const auto rows = in.get<int64_t>();
  const std::string_view bytes = in.get_string();
  std::lock_guard lock(mu_);
  if (range_pieces_.empty() || range_pieces_[static_cast<size_t>(r)])
    throw Error("rank " + std::to_string(r) + ": a key range that was not asked for");
  std::vector<TaggedRun> runs = decode_runs(bytes, range_schema_);
  if (rows_of(runs) != rows)
    throw Error("rank " + std::to_string(r) + ": a key range of " + std::to_string(rows_of(runs)) +
                " rows said " + std::to_string(rows));
  range_pieces_[static_cast<size_t>(r)] = std::move(runs);
  ++ranges_in_;
  changed_.notify_all();
}

}  // namespace ember::dist
