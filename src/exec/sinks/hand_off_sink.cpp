// The hand-off of a pipeline's batches to a reader on another thread.
#include "exec/sinks/hand_off_sink.h"

#include <utility>

namespace ember {

bool HandOff::reserve(const std::function<void()>& wake) {
  std::lock_guard lock(mu_);
  if (closed_ || batches_.size() < capacity_) return true;
  wakes_.push_back(wake);
  return false;
}

void HandOff::put(Batch batch) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    batches_.push_back(std::move(batch));
  }
  changed_.notify_all();
}

void HandOff::finish(std::exception_ptr error) {
  {
    std::lock_guard lock(mu_);
    finished_ = true;
    error_ = std::move(error);
  }
  changed_.notify_all();
}

std::optional<Batch> HandOff::take() {
  std::optional<Batch> batch;
  std::vector<std::function<void()>> wakes;
  {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return !batches_.empty() || finished_; });
    if (batches_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return std::nullopt;
    }
    batch = std::move(batches_.front());
    batches_.pop_front();
    wakes = take_wakes();
  }
  for (const auto& wake : wakes) wake();
  return batch;
}

void HandOff::close() {
  std::vector<std::function<void()>> wakes;
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    batches_.clear();
    wakes = take_wakes();
  }
  for (const auto& wake : wakes) wake();
}

std::vector<std::function<void()>> HandOff::take_wakes() {
  std::vector<std::function<void()>> wakes;
  wakes.swap(wakes_);
  return wakes;
}

namespace {

struct NoState final : GlobalSinkState, LocalSinkState {};

}  // namespace

std::unique_ptr<GlobalSinkState> HandOffSink::global_state(int num_partitions) const {
  (void)num_partitions;
  return std::make_unique<NoState>();
}

std::unique_ptr<LocalSinkState> HandOffSink::local_state(GlobalSinkState& global,
                                                         int partition) const {
  (void)global, (void)partition;
  return std::make_unique<NoState>();
}

bool HandOffSink::ready(GlobalSinkState& global, LocalSinkState& local,
                        const std::function<void()>& wake) const {
  (void)global, (void)local;
  return hand_off_->reserve(wake);
}

void HandOffSink::sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const {
  (void)global, (void)local;
  if (batch.num_rows() > 0) hand_off_->put(batch);
}

void HandOffSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  (void)global, (void)local;
}

}  // namespace ember
