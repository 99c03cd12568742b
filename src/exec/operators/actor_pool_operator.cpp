// Re-batching and re-sequencing around ActorPool::dispatch.
#include "exec/operators/actor_pool_operator.h"

#include "exec/query_context.h"

namespace ember {

ActorPoolOperator::ActorPoolOperator(int pool, std::vector<int> arg_indices,
                                     std::vector<std::string> arg_names, Schema output)
    : pool_(pool),
      arg_indices_(std::move(arg_indices)),
      arg_names_(std::move(arg_names)),
      output_(std::move(output)) {}

std::unique_ptr<AsyncOperatorState> ActorPoolOperator::local_state(
    QueryContext& query, std::function<void()> wake) const {
  return std::make_unique<PoolStage>(*this, query.pool(pool_), std::move(wake));
}

Batch ActorPoolOperator::arguments(const Batch& chunk) const {
  std::vector<Column> args;
  std::vector<Field> fields;
  for (size_t i = 0; i < arg_indices_.size(); ++i) {
    const Column& c = chunk.column(arg_indices_[i]);
    args.push_back(c);
    fields.push_back({arg_names_[i], c.type()});
  }
  return args.empty() ? Batch::empty_with_rows(chunk.num_rows())
                      : Batch(Schema(std::move(fields)), std::move(args));
}

PoolStage::PoolStage(const ActorPoolOperator& op, ActorPool& pool, std::function<void()> wake)
    : op_(op), pool_(pool), wake_(std::move(wake)), batch_size_(pool.spec().batch_size) {
  // Two chunks per actor keep every actor busy; a few more absorb one slow chunk without
  // stalling the rest, while bounding the rows held for re-sequencing.
  window_ = 2 * static_cast<int64_t>(pool.num_actors()) + 2;
}

void PoolStage::feed(const Batch& input) {
  if (input.num_rows() == 0) return;
  pending_.push_back(input);
  pending_rows_ += input.num_rows();
  while (pending_rows_ >= batch_size_) {
    // Cut exactly batch_size rows off the front: zero-copy when one batch holds them.
    std::vector<Batch> parts;
    int64_t need = batch_size_;
    while (need > 0) {
      Batch& front = pending_.front();
      if (front.num_rows() <= need) {
        need -= front.num_rows();
        parts.push_back(std::move(front));
        pending_.erase(pending_.begin());
      } else {
        parts.push_back(front.slice(0, need));
        front = front.slice(need, front.num_rows() - need);
        need = 0;
      }
    }
    pending_rows_ -= batch_size_;
    dispatch(parts.size() == 1 ? parts[0] : Batch::concat(parts));
  }
}

void PoolStage::flush() {
  if (flushed_) return;
  flushed_ = true;
  if (pending_rows_ > 0) dispatch(pending_.size() == 1 ? pending_[0] : Batch::concat(pending_));
  pending_.clear();
  pending_rows_ = 0;
}

void PoolStage::dispatch(Batch chunk) {
  Batch arg_batch = op_.arguments(chunk);
  int64_t seq = next_seq_++;
  inputs_.emplace(seq, std::move(chunk));
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++outstanding_;
  }
  pool_.dispatch(std::move(arg_batch), [this, seq](CallResult r) { complete(seq, std::move(r)); });
}

void PoolStage::complete(int64_t seq, CallResult result) {
  // Wake under the lock: once the driver can see outstanding_ == 0 it may end and be
  // destroyed, so this thread must be done with it by then.
  std::lock_guard<std::mutex> lock(mu_);
  results_.emplace(seq, std::move(result));
  --outstanding_;
  wake_();
}

bool PoolStage::can_accept() const { return next_seq_ - next_emit_ < window_; }

std::optional<Batch> PoolStage::next_ready() {
  CallResult result;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = results_.find(next_emit_);
    if (it == results_.end()) return std::nullopt;
    result = std::move(it->second);
    results_.erase(it);
  }
  auto in = inputs_.find(next_emit_);
  Batch input = std::move(in->second);
  inputs_.erase(in);
  ++next_emit_;
  if (auto* err = std::get_if<std::exception_ptr>(&result)) std::rethrow_exception(*err);
  std::vector<Column> cols = input.columns();
  cols.push_back(std::get<Column>(std::move(result)));
  return Batch(op_.output(), std::move(cols));
}

bool PoolStage::drained() const { return flushed_ && next_emit_ == next_seq_; }

int64_t PoolStage::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return outstanding_;
}

}  // namespace ember
