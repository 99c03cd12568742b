// The loopback endpoints: each has an inbox and, once started, a thread that hands the inbox's
// messages to its handler in arrival order.
#include "dist/loopback_transport.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "dist/region_pool.h"
#include "ember/error.h"

namespace ember::dist {

class LoopbackEndpoint final : public Transport {
 public:
  LoopbackEndpoint(LoopbackNetwork& network, int rank) : network_(network), rank_(rank) {}
  ~LoopbackEndpoint() override { end(false); }

  int rank() const override { return rank_; }
  int ranks() const override { return network_.ranks(); }

  void start(Handler handler) override {
    std::lock_guard lock(mu_);
    if (thread_.joinable() || ended_) return;
    handler_ = std::move(handler);
    thread_ = std::thread([this] { deliver_loop(); });
  }

  void send(int dest, int tag, MessageBuffer bytes) override {
    check_size(bytes.size());
    network_.deliver(dest, received(tag, std::string_view(bytes.data(), bytes.size())));
  }

  void send(int dest, int tag, GatherMessage message) override {
    check_size(message.size());
    std::string joined = std::move(message.head);
    joined.reserve(message.size());
    for (const GatherMessage::Piece& p : message.pieces)
      joined.append(static_cast<const char*>(p.data), p.size);
    network_.deliver(dest, received(tag, joined));
  }

  void stop() override { end(true); }
  bool halt(std::chrono::milliseconds) override {
    end(false);
    return true;
  }

  /// A message for this endpoint (any thread); dropped once it has ended or been cut.
  void take(Incoming message) {
    std::lock_guard lock(mu_);
    if (ended_ || cut_) return;
    inbox_.push_back(std::move(message));
    arrived_.notify_one();
  }

  void cut() {
    std::lock_guard lock(mu_);
    cut_ = true;
    inbox_.clear();
    arrived_.notify_one();
  }
  bool is_cut() {
    std::lock_guard lock(mu_);
    return cut_;
  }

 private:
  static void check_size(size_t bytes) {
    // The same limit as MPI's, so that what passes here passes under mpirun.
    if (bytes > static_cast<size_t>(std::numeric_limits<int>::max()))
      throw UdfError("distributed runner: a message of " + std::to_string(bytes) +
                     " bytes is over MPI's 2 GiB limit; use a smaller batch_size");
  }

  /// The message as the receiving rank sees it: columns in pooled memory, as MPI's receive
  /// puts them.
  Incoming received(int tag, std::string_view bytes) const {
    Incoming in;
    in.source = rank_;
    in.tag = tag;
    if (carries_columns(tag)) {
      in.data = take_region(bytes.size());
      in.data_size = bytes.size();
      if (!bytes.empty()) std::memcpy(in.data->data(), bytes.data(), bytes.size());
    } else {
      in.control = std::string(bytes);
    }
    return in;
  }

  void deliver_loop() {
    for (;;) {
      Incoming message;
      {
        std::unique_lock lock(mu_);
        arrived_.wait(lock, [&] { return !inbox_.empty() || stopping_ || halting_ || cut_; });
        if (halting_ || cut_ || inbox_.empty()) return;  // stopping with nothing left
        message = std::move(inbox_.front());
        inbox_.pop_front();
      }
      handler_(std::move(message));
    }
  }

  /// Ends delivery: after what is queued (`drain`) or at once. Waits for the thread, unless
  /// it is the thread itself (a handler that stops its own endpoint).
  void end(bool drain) {
    std::thread thread;
    {
      std::lock_guard lock(mu_);
      if (ended_) return;
      ended_ = true;
      (drain ? stopping_ : halting_) = true;
      arrived_.notify_one();
      thread.swap(thread_);
    }
    if (!thread.joinable()) return;
    if (thread.get_id() == std::this_thread::get_id())
      thread.detach();
    else
      thread.join();
  }

  LoopbackNetwork& network_;
  const int rank_;
  Handler handler_;  // set before the thread starts
  std::mutex mu_;
  std::condition_variable arrived_;
  std::deque<Incoming> inbox_;  // guarded by mu_
  bool stopping_ = false;       // guarded by mu_: deliver what is queued, then end
  bool halting_ = false;        // guarded by mu_: end at once
  bool ended_ = false;          // guarded by mu_: stop() or halt() was called
  bool cut_ = false;            // guarded by mu_
  std::thread thread_;          // guarded by mu_
};

LoopbackNetwork::LoopbackNetwork(int ranks) {
  if (ranks < 1) throw InvalidArgument("a loopback network needs at least one rank");
  for (int r = 0; r < ranks; ++r)
    endpoints_.push_back(std::make_unique<LoopbackEndpoint>(*this, r));
}

LoopbackNetwork::~LoopbackNetwork() {
  for (auto& e : endpoints_) e->halt(std::chrono::milliseconds(0));
}

Transport& LoopbackNetwork::endpoint(int rank) { return *endpoints_.at(static_cast<size_t>(rank)); }

void LoopbackNetwork::cut(int rank) { endpoints_.at(static_cast<size_t>(rank))->cut(); }

void LoopbackNetwork::deliver(int dest, Incoming message) {
  LoopbackEndpoint& from = *endpoints_.at(static_cast<size_t>(message.source));
  if (dest < 0 || dest >= ranks())
    throw InvalidArgument("loopback network: no rank " + std::to_string(dest) + " of " +
                          std::to_string(ranks()));
  if (from.is_cut()) return;
  endpoints_[static_cast<size_t>(dest)]->take(std::move(message));
}

}  // namespace ember::dist
