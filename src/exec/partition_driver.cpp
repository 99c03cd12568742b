// The per-partition state machine.
#include "exec/partition_driver.h"

namespace ember {

PartitionDriver::PartitionDriver(QueryContext& query, const Pipeline& pipeline,
                                 const Source& source, int partition, const Sink& sink,
                                 GlobalSinkState& sink_state, TaskScheduler& scheduler,
                                 std::shared_ptr<Prefetched> ahead)
    : query_(query),
      pipeline_(pipeline),
      source_(source),
      partition_(partition),
      sink_(sink),
      sink_state_(sink_state),
      scheduler_(scheduler),
      waker_(std::make_shared<Waker>()),
      ahead_(std::move(ahead)) {
  waker_->driver = this;
  // Made once: a sink keeps a copy, which reaches this driver only until it is disowned.
  sink_wake_ = [waker = waker_, &scheduler] {
    std::lock_guard lock(waker->mu);
    if (waker->driver) scheduler.wake(waker->driver);
  };
  for (const auto& op : pipeline.stages)
    stages_.push_back(op->local_state(query, partition, [this] { scheduler_.wake(this); }));
}

Task::Step PartitionDriver::run() {
  try {
    // A few morsels per turn, then yield so other partitions share the threads.
    for (int turn = 0; turn < 4; ++turn) {
      if (!stopping_ && (query_.cancelled() || sink_.satisfied(sink_state_))) stopping_ = true;
      if (!stopping_ && local_ && sink_.full(*local_)) {
        // This partition alone met the limit: it is complete without more input.
        stopping_ = true;
        finish_partition();
      }
      if (stopping_) return stop();
      if (!step()) return Step::Blocked;
      if (source_done_ && (stages_.empty() || stages_.back()->drained()) && to_sink_.empty()) {
        finish_partition();
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

void PartitionDriver::disown() {
  std::lock_guard lock(waker_->mu);
  waker_->driver = nullptr;
}

void PartitionDriver::finish_partition() {
  sink_.combine(sink_state_, *local_);
  query_.partitions_done.fetch_add(1, std::memory_order_relaxed);
}

Task::Step PartitionDriver::stop() {
  // Completions still to come hold a pointer to this driver: end only when none are left.
  return in_flight() == 0 ? Step::Done : Step::Blocked;
}

/// One unit of progress; false when nothing could be done (waiting for actors).
bool PartitionDriver::step() {
  if (!local_) {
    local_ = sink_.local_state(sink_state_, partition_);
    begin_partition();
  }
  if (!reader_ && !source_done_)
    reader_ = source_.open_prefetched(partition_, kMorselRows, std::move(ahead_));
  bool progress = false;
  if (!to_sink_.empty()) {
    if (!flush_sink()) return false;  // the sink wakes this driver when it has room
    progress = true;
  }
  progress = drain_stages() || progress;
  if (checkpoint_due()) progress = checkpoint_when_caught_up() || progress;
  if (!source_done_ && held_ && !checkpoint_due() && to_sink_.empty() &&
      (stages_.empty() || stages_.front()->can_accept())) {
    Batch rest = std::move(*held_);
    held_.reset();
    if (Batch b = cut_input(std::move(rest)); b.num_rows() > 0) push(0, std::move(b));
    progress = true;
  } else if (!source_done_ && !checkpoint_due() && to_sink_.empty() &&
             (stages_.empty() || stages_.front()->can_accept())) {
    std::optional<Batch> b = reader_->next();
    // Rows a scan's own filter dropped were read too.
    const int64_t dropped = reader_->rows_dropped();
    query_.rows_read.fetch_add((b ? b->num_rows() : 0) + dropped - rows_dropped_,
                               std::memory_order_relaxed);
    rows_dropped_ = dropped;
    const int64_t bytes = reader_->bytes_read();
    query_.bytes_read.fetch_add(bytes - bytes_read_, std::memory_order_relaxed);
    bytes_read_ = bytes;
    if (b) {
      if (Batch rows = cut_input(std::move(*b)); rows.num_rows() > 0) push(0, std::move(rows));
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

void PartitionDriver::begin_partition() {
  const PartitionStart start = sink_.start_of(sink_state_, partition_);
  if (start.finished) {
    source_done_ = true;  // an earlier run wrote all of it: nothing is read
    return;
  }
  skip_rows_ = start.skip_rows;
  checkpoint_every_ = sink_.checkpoint_rows(sink_state_);
  window_left_ = checkpoint_every_;
}

Batch PartitionDriver::cut_input(Batch batch) {
  if (skip_rows_ > 0) {
    const int64_t skipped = std::min(skip_rows_, batch.num_rows());
    skip_rows_ -= skipped;
    input_rows_ += skipped;
    batch = batch.slice(skipped, batch.num_rows() - skipped);
  }
  if (checkpoint_every_ > 0 && batch.num_rows() > window_left_) {
    held_ = batch.slice(window_left_, batch.num_rows() - window_left_);
    batch = batch.slice(0, window_left_);
  }
  input_rows_ += batch.num_rows();
  if (checkpoint_every_ > 0) window_left_ -= batch.num_rows();
  return batch;
}

bool PartitionDriver::checkpoint_when_caught_up() {
  // Stage by stage: a stage releases its held-back rows once every row before it has come out
  // of the stage upstream.
  for (size_t k = 0; k < stages_.size(); ++k) {
    if (k > 0 && !stages_[k - 1]->caught_up()) return false;
    stages_[k]->release_held();
  }
  if (!to_sink_.empty() || (!stages_.empty() && !stages_.back()->caught_up())) return false;
  sink_.checkpoint(sink_state_, *local_, input_rows_);
  window_left_ = checkpoint_every_;
  return true;
}

bool PartitionDriver::flush_sink() {
  while (!to_sink_.empty()) {
    if (!sink_.ready(sink_state_, *local_, sink_wake_)) return false;
    Batch batch = std::move(to_sink_.front());
    to_sink_.pop_front();
    query_.rows_out.fetch_add(batch.num_rows(), std::memory_order_relaxed);
    sink_.sink(sink_state_, *local_, batch);
  }
  return true;
}

void PartitionDriver::push(size_t segment, Batch batch) {
  // Expressions evaluate a column per node: over cache-sized slices of a morsel those
  // intermediates stay in cache instead of streaming through memory.
  const int64_t n = batch.num_rows();
  if (!pipeline_.segments[segment].empty() && n > kEvalRows) {
    for (int64_t off = 0; off < n; off += kEvalRows)
      push_slice(segment, batch.slice(off, std::min(kEvalRows, n - off)));
    return;
  }
  push_slice(segment, std::move(batch));
}

void PartitionDriver::push_slice(size_t segment, Batch batch) {
  for (const auto& op : pipeline_.segments[segment]) {
    batch = op->execute(batch);
    if (batch.num_rows() == 0) return;
  }
  if (segment < stages_.size()) {
    stages_[segment]->feed(batch);
  } else {
    to_sink_.push_back(std::move(batch));
    flush_sink();
  }
}

bool PartitionDriver::drain_stages() {
  bool progress = false;
  // Last stage first, so finished rows leave before new ones arrive; none while the sink holds
  // rows back.
  for (size_t k = stages_.size(); k-- > 0;) {
    while (to_sink_.empty()) {
      // Rows move on only while the next stage takes them, so each stage's own window bounds
      // what the chain holds (a slow UDF after a download holds the downloads back).
      if (k + 1 < stages_.size() && !stages_[k + 1]->can_accept()) break;
      std::optional<Batch> out = stages_[k]->next_ready();
      if (!out) break;
      // An empty output (a chunk whose every row was skipped) is progress all the same.
      if (out->num_rows() > 0) push(k + 1, std::move(*out));
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
