// Re-batching, re-sequencing and failed-row isolation around ActorPool::dispatch.
#include "exec/operators/actor_pool_operator.h"

#include <algorithm>

#include "exec/query_context.h"

namespace ember {

ActorPoolOperator::ActorPoolOperator(int pool, std::vector<int> arg_indices,
                                     std::vector<std::string> arg_names, Schema output)
    : pool_(pool),
      arg_indices_(std::move(arg_indices)),
      arg_names_(std::move(arg_names)),
      output_(std::move(output)) {
  std::vector<Field> fields;
  for (size_t i = 0; i < arg_indices_.size(); ++i)
    fields.push_back({arg_names_[i], output_.field(arg_indices_[i]).type});
  arg_schema_ = Schema(std::move(fields));
}

std::unique_ptr<AsyncOperatorState> ActorPoolOperator::local_state(
    QueryContext& query, int partition, std::function<void()> wake) const {
  return std::make_unique<PoolStage>(*this, query.pool(pool_), query.rejected(pool_), partition,
                                     std::move(wake));
}

Batch ActorPoolOperator::arguments(const Batch& chunk) const {
  if (arg_indices_.empty()) return Batch::empty_with_rows(chunk.num_rows());
  // The chunk's own columns, shared rather than copied, under the names the UDF expects.
  std::vector<Column> args;
  args.reserve(arg_indices_.size());
  for (const int i : arg_indices_) args.push_back(chunk.column(i));
  return Batch(arg_schema_, std::move(args));
}

PoolStage::PoolStage(const ActorPoolOperator& op, ActorPool& pool, RejectedRows& rejected,
                     int partition, std::function<void()> wake)
    : op_(op),
      pool_(pool),
      rejected_(rejected),
      partition_(partition),
      wake_(std::move(wake)),
      batch_size_(pool.spec().batch_size),
      policy_(pool.spec()),
      ring_(8),
      sizing_(policy_.piece_sizing()) {
  // Two chunks per call an actor may run at once keep every actor busy; a few more absorb one
  // slow chunk without stalling the rest, while bounding the rows held for re-sequencing.
  const int64_t calls_at_once =
      static_cast<int64_t>(pool.num_actors()) * std::max(1, pool.spec().max_concurrency);
  window_ = 2 * calls_at_once + 2;
  size_t slots = ring_.size();
  while (slots < static_cast<size_t>(window_)) slots *= 2;
  ring_.resize(slots);
}

void PoolStage::feed(const Batch& input) {
  const int64_t rows = input.num_rows();
  if (rows == 0) return;
  int64_t at = 0;
  if (pending_rows_ > 0) {
    // Top up the rows held back to a full chunk: the only rows that are copied (concat).
    const int64_t take = std::min(batch_size_ - pending_rows_, rows);
    pending_.push_back(take == rows ? input : input.slice(0, take));
    pending_rows_ += take;
    at = take;
    if (pending_rows_ < batch_size_) return;
    dispatch(Batch::concat(pending_));
    pending_.clear();
    pending_rows_ = 0;
  }
  // Whole chunks straight out of the input: zero-copy slices.
  for (; rows - at >= batch_size_; at += batch_size_)
    dispatch(at == 0 && rows == batch_size_ ? input : input.slice(at, batch_size_));
  if (at < rows) {
    pending_.push_back(at == 0 ? input : input.slice(at, rows - at));
    pending_rows_ = rows - at;
  }
}

void PoolStage::flush() {
  if (flushed_) return;
  flushed_ = true;
  release_held();
}

void PoolStage::release_held() {
  if (pending_rows_ > 0) dispatch(pending_.size() == 1 ? pending_[0] : Batch::concat(pending_));
  pending_.clear();
  pending_rows_ = 0;
}

void PoolStage::dispatch(Batch chunk) {
  Batch arg_batch = op_.arguments(chunk);
  const int64_t rows = arg_batch.num_rows();
  const int64_t seq = next_seq_++;
  int64_t piece = rows;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (next_seq_ - next_emit_ > static_cast<int64_t>(ring_.size())) {
      // More chunks in flight than slots (one feed of many rows): double the ring, moving the
      // live slots to their new positions. Completions look slots up under this lock.
      std::vector<ChunkCalls> bigger(2 * ring_.size());
      for (int64_t s = next_emit_; s < seq; ++s)
        bigger[static_cast<size_t>(s) & (bigger.size() - 1)] = std::move(slot(s));
      ring_.swap(bigger);
    }
    piece = std::max<int64_t>(1, std::min(rows, sizing_.rows));
    ChunkCalls& calls = slot(seq);
    calls.input = std::move(chunk);
    calls.pieces = std::max<int>(1, static_cast<int>((rows + piece - 1) / piece));
    outstanding_ += calls.pieces;  // an empty chunk is still one call
  }
  if (piece >= rows) {
    call_piece(seq, 0, std::move(arg_batch), true);
    return;
  }
  for (int64_t at = 0; at < rows; at += piece)
    call_piece(seq, at, arg_batch.slice(at, std::min(piece, rows - at)), true);
}

void PoolStage::call_piece(int64_t seq, int64_t offset, Batch args, bool first) {
  // Only a piece that may be split again keeps its arguments past its call.
  Batch kept = policy_.isolates() ? args : Batch();
  // Isolation's pieces go ahead of the queue: their chunk holds up the partition's output.
  pool_.dispatch(
      std::move(args),
      [this, seq, offset, first, kept = std::move(kept)](CallResult r) mutable {
        complete(seq, offset, std::move(kept), first, std::move(r));
      },
      !first);
}

std::optional<std::string> PoolStage::isolation_message(const std::exception_ptr& error) const {
  // A pool that failed as a whole (an actor could not be constructed) runs nothing more:
  // nothing is left to isolate.
  if (!policy_.isolates() || pool_.failed()) return std::nullopt;
  return policy_.isolated_message(error);
}

void PoolStage::complete(int64_t seq, int64_t offset, Batch args, bool first, CallResult result) {
  int64_t parts = 0;
  {
    // Wake under the lock: once the driver can see outstanding_ == 0 it may end and be
    // destroyed, so this thread must be done with it by then.
    std::lock_guard<std::mutex> lock(mu_);
    ChunkCalls& chunk = slot(seq);
    if (auto* column = std::get_if<Column>(&result)) {
      chunk.parts.emplace_back(offset, std::move(*column));
      policy_.after_call(sizing_, false, first);
    } else {
      std::exception_ptr error = std::get<std::exception_ptr>(std::move(result));
      std::optional<std::string> message;
      if (!chunk.error) message = isolation_message(error);
      if (chunk.error) {
        // The chunk has already failed; this piece changes nothing.
      } else if (!message) {
        chunk.error = error;
      } else {
        policy_.after_call(sizing_, true, first);
        parts = FailurePolicy::split_parts(args.num_rows());
        if (parts == 0) {
          chunk.failed.emplace_back(offset, std::move(*message));
        } else {
          // Split: the parts are counted before this piece's completion is, so the stage
          // never looks idle while they are on their way.
          chunk.pieces += static_cast<int>(parts);
          outstanding_ += parts;
        }
      }
    }
    --chunk.pieces;
    --outstanding_;
    if (parts == 0) {
      // Only a chunk's last piece can change what the driver sees (an emittable chunk, the
      // stage's last call back): waking it for every piece would run it for nothing.
      if (chunk.pieces == 0) wake_();
      return;
    }
  }
  // Nothing of this stage but what call_piece reads is touched after the last dispatch: once
  // it has completed, the stage may be gone.
  const int64_t rows = args.num_rows();
  for (int64_t k = 0; k < parts; ++k) {
    const SplitPiece part = FailurePolicy::split_piece(rows, parts, k);
    call_piece(seq, offset + part.offset, args.slice(part.offset, part.rows), false);
  }
}

bool PoolStage::can_accept() const { return next_seq_ - next_emit_ < window_; }

std::optional<Batch> PoolStage::next_ready() {
  if (next_emit_ == next_seq_) return std::nullopt;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ChunkCalls& calls = slot(next_emit_);
    if (calls.pieces > 0) return std::nullopt;
    // Swapped, not moved: the slot gets the previous chunk's emptied vectors, capacity and all.
    std::swap(calls, emitting_);
  }
  const int64_t seq = next_emit_++;
  struct Reset {  // leaves emitting_ empty however assembly ends (it may throw)
    ChunkCalls& c;
    ~Reset() {
      c.input = Batch();
      c.parts.clear();
      c.failed.clear();
      c.error = nullptr;
    }
  } reset{emitting_};
  if (emitting_.error) std::rethrow_exception(emitting_.error);
  return assemble(seq, emitting_);
}

Batch PoolStage::assemble(int64_t seq, ChunkCalls& calls) {
  const Batch& input = calls.input;
  std::vector<Column> cols = input.columns();
  const DataType& type = op_.output().field(op_.output().num_fields() - 1).type;
  auto in_order = [](std::vector<std::pair<int64_t, Column>>& parts) {
    std::sort(parts.begin(), parts.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
  };
  auto result_of = [&](std::vector<std::pair<int64_t, Column>>& parts) {
    if (parts.size() == 1) return parts.front().second;
    in_order(parts);
    std::vector<Column> columns;
    columns.reserve(parts.size());
    for (const auto& [offset, column] : parts) columns.push_back(column);
    return Column::concat(columns);
  };
  if (calls.failed.empty()) {
    cols.push_back(result_of(calls.parts));
    return Batch(op_.output(), std::move(cols));
  }
  std::sort(calls.failed.begin(), calls.failed.end());
  const Batch args = op_.arguments(input);
  std::vector<Batch> rows;
  std::vector<std::string> errors;
  for (const auto& [row, error] : calls.failed) {
    rows.push_back(args.slice(row, 1));
    errors.push_back(error);
  }
  rejected_.add(partition_, seq, Batch::concat(rows), errors);  // throws past max_failed_rows
  if (policy_.failed_row() == FailedRow::Null) {
    for (const auto& [row, error] : calls.failed)
      calls.parts.emplace_back(row, Column::nulls(type, 1));
    cols.push_back(result_of(calls.parts));
    return Batch(op_.output(), std::move(cols));
  }
  // Skip: the runs of rows between failed ones, each with its piece's results.
  in_order(calls.parts);
  std::vector<Batch> kept;
  for (const auto& [offset, column] : calls.parts) {
    std::vector<Column> run = input.slice(offset, column.size()).columns();
    run.push_back(column);
    kept.push_back(Batch(op_.output(), std::move(run)));
  }
  if (kept.empty()) {
    // Every row was dropped: an empty batch still tells the driver that the stage moved on.
    std::vector<Column> none = input.slice(0, 0).columns();
    none.push_back(Column::nulls(type, 0));
    return Batch(op_.output(), std::move(none));
  }
  return kept.size() == 1 ? kept.front() : Batch::concat(kept);
}

bool PoolStage::drained() const { return flushed_ && next_emit_ == next_seq_; }

int64_t PoolStage::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return outstanding_;
}

}  // namespace ember
