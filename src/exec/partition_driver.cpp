// The per-partition state machine.
#include "exec/partition_driver.h"

#include "exec/batch_transform.h"

namespace ember {

PartitionDriver::PartitionDriver(QueryContext& query, const Pipeline& pipeline,
                                 const Source& source, int partition, Sink& sink,
                                 TaskScheduler& scheduler)
    : query_(query), source_(source), partition_(partition), sink_(sink), scheduler_(scheduler) {
  segments_.emplace_back();
  for (const auto& op : pipeline.ops) {
    if (op.kind == PhysicalOp::Kind::ActorPool) {
      stages_.push_back(std::make_unique<PoolStage>(op, query.pool(op.pool),
                                                    [this] { scheduler_.wake(this); }));
      segments_.emplace_back();
    } else {
      segments_.back().push_back(&op);
    }
  }
}

Task::Step PartitionDriver::run() {
  try {
    // A few morsels per turn, then yield so other partitions share the threads.
    for (int turn = 0; turn < 4; ++turn) {
      if (!stopping_ && (query_.cancelled() || sink_.satisfied())) stopping_ = true;
      if (!stopping_ && part_sink_ && part_sink_->full()) {
        // This partition alone met the limit: it is complete without more input.
        stopping_ = true;
        part_sink_->finish();
        query_.partitions_done.fetch_add(1, std::memory_order_relaxed);
      }
      if (stopping_) return stop();
      if (!step()) return Step::Blocked;
      if (source_done_ && (stages_.empty() || stages_.back()->drained())) {
        part_sink_->finish();
        query_.partitions_done.fetch_add(1, std::memory_order_relaxed);
        return Step::Done;
      }
    }
    return Step::Yield;
  } catch (...) {
    query_.fail(std::current_exception());
    stopping_ = true;
    return stop();
  }
}

Task::Step PartitionDriver::stop() {
  // Completions still to come hold a pointer to this driver: end only when none are left.
  return in_flight() == 0 ? Step::Done : Step::Blocked;
}

/// One unit of progress; false when nothing could be done (waiting for actors).
bool PartitionDriver::step() {
  if (!part_sink_) part_sink_ = sink_.open(partition_);
  if (!reader_) reader_ = source_.open(partition_, kMorselRows);
  bool progress = drain_stages();
  if (!source_done_ && (stages_.empty() || stages_.front()->can_accept())) {
    std::optional<Batch> b = reader_->next();
    if (b) {
      query_.rows_read.fetch_add(b->num_rows(), std::memory_order_relaxed);
      push(0, std::move(*b));
    } else {
      source_done_ = true;
      reader_.reset();  // release file handles and buffers early
    }
    progress = true;
  }
  // An upstream that ended lets the next stage dispatch its last, short chunk.
  for (size_t k = 0; k < stages_.size(); ++k) {
    bool upstream_done = k == 0 ? source_done_ : stages_[k - 1]->drained();
    if (upstream_done && !stages_[k]->flushed()) {
      stages_[k]->flush();
      progress = true;
    }
  }
  return progress || drain_stages();
}

void PartitionDriver::push(size_t segment, Batch batch) {
  // Expressions evaluate a column per node: over cache-sized slices of a morsel those
  // intermediates stay in cache instead of streaming through memory.
  const int64_t n = batch.num_rows();
  if (!segments_[segment].empty() && n > kEvalRows) {
    for (int64_t off = 0; off < n; off += kEvalRows)
      push_slice(segment, batch.slice(off, std::min(kEvalRows, n - off)));
    return;
  }
  push_slice(segment, std::move(batch));
}

void PartitionDriver::push_slice(size_t segment, Batch batch) {
  for (const PhysicalOp* op : segments_[segment]) {
    batch = apply_transform(*op, batch);
    if (batch.num_rows() == 0) return;
  }
  if (segment < stages_.size()) {
    stages_[segment]->feed(batch);
  } else {
    query_.rows_out.fetch_add(batch.num_rows(), std::memory_order_relaxed);
    part_sink_->consume(batch);
  }
}

bool PartitionDriver::drain_stages() {
  bool progress = false;
  // Last stage first, so finished rows leave before new ones arrive.
  for (size_t k = stages_.size(); k-- > 0;) {
    while (std::optional<Batch> out = stages_[k]->next_ready()) {
      push(k + 1, std::move(*out));
      progress = true;
    }
  }
  return progress;
}

int64_t PartitionDriver::in_flight() const {
  int64_t n = 0;
  for (const auto& s : stages_) n += s->in_flight();
  return n;
}

}  // namespace ember
