// A pipeline's output handed, batch by batch, to a reader on another thread: a few batches wait
// at most, and the pipeline is blocked (Sink::ready) until the reader takes one, so a pipeline
// run as a source's reader streams with bounded memory.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "exec/sink.h"

namespace ember {

/// Between the pipeline's threads (reserve, put, finish) and one reader (take, close).
class HandOff {
 public:
  /// `capacity`: batches that may wait for the reader before the pipeline is blocked.
  explicit HandOff(size_t capacity) : capacity_(capacity) {}
  /// Whether there is room for a batch; if not, `wake` runs once the reader took one.
  bool reserve(const std::function<void()>& wake);
  void put(Batch batch);
  /// The pipeline ended: with `error` (null: it ended normally).
  void finish(std::exception_ptr error);
  /// Waits for the next batch; nullopt once the pipeline ended and every batch was taken.
  /// Rethrows the pipeline's error.
  std::optional<Batch> take();
  /// The reader is gone: batches from now on are dropped and nothing is blocked.
  void close();

 private:
  /// The wake-ups of the blocked partitions, taken out (mu_ held) to run without the lock.
  std::vector<std::function<void()>> take_wakes();

  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Batch> batches_;                 // guarded by mu_
  std::vector<std::function<void()>> wakes_;  // guarded by mu_
  bool finished_ = false;                     // guarded by mu_
  bool closed_ = false;                       // guarded by mu_
  std::exception_ptr error_;                  // guarded by mu_
};

/// Hands every batch that reaches it to `hand_off`'s reader, in each partition's order.
class HandOffSink final : public Sink {
 public:
  explicit HandOffSink(std::shared_ptr<HandOff> hand_off) : hand_off_(std::move(hand_off)) {}
  std::unique_ptr<GlobalSinkState> global_state(int num_partitions) const override;
  std::unique_ptr<LocalSinkState> local_state(GlobalSinkState& global,
                                              int partition) const override;
  bool ready(GlobalSinkState& global, LocalSinkState& local,
             const std::function<void()>& wake) const override;
  void sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const override;
  void combine(GlobalSinkState& global, LocalSinkState& local) const override;

 private:
  std::shared_ptr<HandOff> hand_off_;
};

}  // namespace ember
