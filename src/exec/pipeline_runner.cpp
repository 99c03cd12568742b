// Partition activation and completion tracking, and the driver thread's wait.
#include "exec/pipeline_runner.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>

#include "exec/partition_driver.h"
#include "exec/task_scheduler.h"

namespace ember {

namespace {

class Activation {
 public:
  Activation(QueryContext& query, const Pipeline& pipeline, const Source& source, const Sink& sink,
             GlobalSinkState& sink_state, int threads, PartitionSupply& supply)
      : query_(query),
        pipeline_(pipeline),
        source_(source),
        sink_(sink),
        sink_state_(sink_state),
        supply_(supply),
        // Enough partitions to keep every thread and actor fed; few enough to bound memory.
        max_active_(std::max(4, 2 * threads)),
        scheduler_(threads, [this](Task* task) { on_done(*static_cast<PartitionDriver*>(task)); }) {
    query_.on_cancel([this] {
      std::lock_guard<std::mutex> lock(mu_);
      cv_.notify_all();
    });
    supply_.set_waker([this] { on_supplied(); });
  }
  ~Activation() {
    query_.on_cancel(nullptr);
    supply_.set_waker(nullptr);            // a waker still running ends first
    for (auto& d : drivers_) d->disown();  // a sink's late wake-up must not reach the scheduler
  }

  /// The driver thread's part: starts partitions, and waits for them to end. A failure wakes
  /// it to cancel the pools, so that no pipeline thread ever does; calls still running a
  /// teardown grace later are given up, so that a call that never returns cannot hold a failed
  /// query.
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    activate();
    std::optional<std::chrono::steady_clock::time_point> give_up_at;  // once pools cancelled
    bool given_up = false;
    while (true) {
      auto woken = [&] { return finished() || (query_.cancelled() && !give_up_at); };
      if (give_up_at && !given_up) {
        if (!cv_.wait_until(lock, *give_up_at, woken)) {
          given_up = true;
          lock.unlock();
          query_.give_up_pools();  // their batches complete here and wake their partitions
          lock.lock();
          continue;
        }
      } else {
        cv_.wait(lock, woken);
      }
      if (finished() && (!query_.cancelled() || give_up_at)) return;
      if (give_up_at) continue;
      give_up_at = std::chrono::steady_clock::now() + query_.teardown_grace();
      lock.unlock();
      query_.cancel_pools();  // refused work completes here and wakes its partitions
      lock.lock();
    }
  }

 private:
  bool stopped() const { return query_.cancelled() || sink_.satisfied(sink_state_); }
  bool finished() const { return active_ == 0 && (exhausted_ || stopped()); }  // mu_ held

  void activate() {  // mu_ held
    while (active_ < max_active_ && !exhausted_ && !waiting_ && !stopped()) {
      const SuppliedPartition next = supply_.take();
      if (next.kind == SuppliedPartition::Kind::Exhausted) {
        exhausted_ = true;
      } else if (next.kind == SuppliedPartition::Kind::Later) {
        waiting_ = true;  // on_supplied() comes
      } else {
        std::shared_ptr<Prefetched> fetched;
        if (auto it = ahead_.find(next.partition); it != ahead_.end()) {
          fetched = std::move(it->second);
          ahead_.erase(it);
        }
        drivers_.push_back(std::make_unique<PartitionDriver>(query_, pipeline_, source_,
                                                             next.partition, sink_, sink_state_,
                                                             scheduler_, std::move(fetched)));
        ++active_;
        scheduler_.wake(drivers_.back().get());
      }
    }
    // The next partition's input is fetched while these run: one partition ahead at most.
    if (!exhausted_ && !stopped() && ahead_.empty())
      if (const int next = supply_.peek(); next >= 0)
        if (auto fetched = source_.prefetch(next)) ahead_.emplace(next, std::move(fetched));
  }

  void on_done(const PartitionDriver& ended) {
    supply_.ended(ended.partition());  // before the lock: the supply may call its waker
    std::lock_guard<std::mutex> lock(mu_);
    --active_;
    activate();
    cv_.notify_all();
  }

  /// The supply's waker: what it said Later for has come (any thread; never under its lock).
  void on_supplied() {
    std::lock_guard<std::mutex> lock(mu_);
    waiting_ = false;
    activate();
    cv_.notify_all();
  }

  QueryContext& query_;
  const Pipeline& pipeline_;
  const Source& source_;
  const Sink& sink_;
  GlobalSinkState& sink_state_;
  PartitionSupply& supply_;  ///< taken from under mu_
  int max_active_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool exhausted_ = false;  // guarded by mu_: the supply has no more
  bool waiting_ = false;    // guarded by mu_: the supply said Later and will wake us
  int active_ = 0;          // guarded by mu_
  std::vector<std::unique_ptr<PartitionDriver>> drivers_;
  /// Guarded by mu_: input fetched ahead for a partition not started yet (Source::prefetch).
  std::map<int, std::shared_ptr<Prefetched>> ahead_;
  TaskScheduler scheduler_;  // last: its threads stop first
};

/// A source seen `offset` partitions further on: partition offset + q is its partition q.
class ShiftedSource final : public Source {
 public:
  ShiftedSource(const Source& source, int offset) : source_(source), offset_(offset) {}
  const Schema& schema() const override { return source_.schema(); }
  int num_partitions() const override { return offset_ + source_.num_partitions(); }
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override {
    return source_.open(p - offset_, batch_rows);
  }
  std::shared_ptr<Prefetched> prefetch(int p) const override {
    return p >= offset_ ? source_.prefetch(p - offset_) : nullptr;
  }
  std::unique_ptr<BatchReader> open_prefetched(int p, int64_t batch_rows,
                                               std::shared_ptr<Prefetched> ahead) const override {
    return source_.open_prefetched(p - offset_, batch_rows, std::move(ahead));
  }
  std::string describe() const override { return source_.describe(); }
  void accept(SourceVisitor& v) const override { v.visit_intermediate(*this); }

 private:
  const Source& source_;
  int offset_;
};

}  // namespace

void run_pipeline(QueryContext& query, const Pipeline& pipeline, const Source& source,
                  const Sink& sink, GlobalSinkState& sink_state, int threads,
                  const std::vector<int>* partitions) {
  FixedPartitionSupply supply = partitions ? FixedPartitionSupply(*partitions)
                                           : FixedPartitionSupply(source.num_partitions());
  query.partitions_total.fetch_add(supply.count());
  run_pipeline(query, pipeline, source, sink, sink_state, threads, supply);
}

void run_pipeline(QueryContext& query, const Pipeline& pipeline, const Source& source,
                  const Sink& sink, GlobalSinkState& sink_state, int threads,
                  PartitionSupply& supply) {
  Activation activation(query, pipeline, source, sink, sink_state, threads, supply);
  activation.run();
}

int pipeline_partitions(const Pipeline& pipeline, const Source& source) {
  int n = source.num_partitions();
  for (const PipelineTail& t : pipeline.tails) n += t.source->num_partitions();
  return n;
}

void run_pipeline_and_tails(QueryContext& query, const Pipeline& pipeline, const Source& source,
                            const Sink& sink, GlobalSinkState& sink_state, int threads) {
  run_pipeline(query, pipeline, source, sink, sink_state, threads);
  run_tails(query, pipeline, source, sink, sink_state, threads);
}

void run_tails(QueryContext& query, const Pipeline& pipeline, const Source& source,
               const Sink& sink, GlobalSinkState& sink_state, int threads) {
  int offset = source.num_partitions();
  for (const PipelineTail& t : pipeline.tails) {
    if (query.cancelled() || sink.satisfied(sink_state)) return;
    const Pipeline rest = pipeline.rest(t);
    const ShiftedSource shifted(*t.source, offset);
    std::vector<int> partitions(static_cast<size_t>(t.source->num_partitions()));
    for (int& p : partitions) p = offset++;
    run_pipeline(query, rest, shifted, sink, sink_state, threads, &partitions);
  }
}

}  // namespace ember
