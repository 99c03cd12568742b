// The progress thread: queued sends become MPI_Isend, completed ones are freed, and MPI_Iprobe
// finds arrivals. An idle loop backs off to short sleeps, so that a waiting rank does not hold
// a core (ranks often share a machine's cores with the actors doing the work).
#include "dist/mpi_transport.h"

#if EMBER_HAVE_MPI

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "dist/region_pool.h"
#include "ember/error.h"

namespace ember::dist {

namespace {

/// Rounds the loop only yields after its last activity before it starts sleeping: a reply that
/// follows at once (a small batch) is seen without a sleep's wake-up.
constexpr int kSpinRounds = 4;
/// The longest sleep of an idle loop: every message waits up to this long to be noticed, and
/// a remote call costs two such waits, so it stays far below a UDF call's time.
constexpr int kMaxSleepUs = 50;

struct Outgoing {
  int dest;
  int tag;
  MessageBuffer bytes;
  GatherMessage gathered;  ///< used when `bytes` is empty and this has pieces or a head
};

/// One MPI datatype over the message's head and pieces at their addresses (sent from
/// MPI_BOTTOM); freed at once (MPI keeps it until the send completes).
void isend_gathered(const GatherMessage& m, int dest, int tag, MPI_Request* request) {
  std::vector<int> lengths;
  std::vector<MPI_Aint> at;
  auto add = [&](const void* p, size_t n) {
    if (n == 0) return;
    MPI_Aint address = 0;
    MPI_Get_address(p, &address);
    lengths.push_back(static_cast<int>(n));
    at.push_back(address);
  };
  add(m.head.data(), m.head.size());
  for (const GatherMessage::Piece& p : m.pieces) add(p.data, p.size);
  MPI_Datatype type;
  MPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), at.data(), MPI_BYTE,
                           &type);
  MPI_Type_commit(&type);
  MPI_Isend(MPI_BOTTOM, 1, type, dest, tag, MPI_COMM_WORLD, request);
  MPI_Type_free(&type);
}

}  // namespace

struct MpiTransport::State {
  std::mutex mu;
  std::deque<Outgoing> queue;  // guarded by mu
  bool stopping = false;       // guarded by mu
  bool started = false;        // guarded by mu
  bool left = false;           // guarded by mu: the progress thread has returned
  std::condition_variable gone;
  std::atomic<bool> halting{false};
  std::thread thread;
  Transport::Handler handler;
};

namespace {

using State = MpiTransport::State;

void receive_one(const MPI_Status& probed, Transport::Handler& handler) {
  int count = 0;
  MPI_Get_count(&probed, MPI_BYTE, &count);
  Incoming in;
  in.source = probed.MPI_SOURCE;
  in.tag = probed.MPI_TAG;
  void* into = nullptr;
  if (carries_columns(in.tag)) {  // columns: into pooled memory
    in.data = take_region(static_cast<size_t>(count));
    in.data_size = static_cast<size_t>(count);
    into = in.data->data();
  } else {
    in.control.resize(static_cast<size_t>(count));
    into = in.control.data();
  }
  MPI_Recv(into, count, MPI_BYTE, in.source, in.tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  handler(std::move(in));
}

void progress_loop(State& s) {
  struct InFlight {
    MPI_Request request;
    MessageBuffer bytes;
    GatherMessage gathered;
  };
  std::vector<std::unique_ptr<InFlight>> sending;
  int idle_rounds = 0;
  for (;;) {
    if (s.halting.load(std::memory_order_relaxed)) return;  // in-flight requests are abandoned
    bool active = false;
    std::deque<Outgoing> batch;
    bool stopping = false;
    {
      std::lock_guard lock(s.mu);
      batch.swap(s.queue);
      stopping = s.stopping;
    }
    for (Outgoing& out : batch) {
      auto f = std::make_unique<InFlight>();
      f->bytes = std::move(out.bytes);
      f->gathered = std::move(out.gathered);
      if (f->gathered.head.empty() && f->gathered.pieces.empty())
        MPI_Isend(f->bytes.data(), static_cast<int>(f->bytes.size()), MPI_BYTE, out.dest, out.tag,
                  MPI_COMM_WORLD, &f->request);
      else
        isend_gathered(f->gathered, out.dest, out.tag, &f->request);
      sending.push_back(std::move(f));
      active = true;
    }
    for (size_t i = 0; i < sending.size();) {
      int done = 0;
      MPI_Test(&sending[i]->request, &done, MPI_STATUS_IGNORE);
      if (done) {
        sending[i] = std::move(sending.back());
        sending.pop_back();
        active = true;
      } else {
        ++i;
      }
    }
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    if (flag) {
      receive_one(status, s.handler);
      active = true;
    }
    if (stopping && batch.empty() && sending.empty()) {
      std::lock_guard lock(s.mu);
      if (s.queue.empty()) return;
    }
    if (active || !sending.empty()) {
      // A large send advances only while this loop calls MPI (each fragment of a rendezvous
      // needs the sender's progress), so it never sleeps with a send under way.
      idle_rounds = 0;
      if (!active) std::this_thread::yield();
    } else if (++idle_rounds > kSpinRounds) {
      // Idle: sleep a little, longer the longer nothing happens (up to kMaxSleepUs), so that
      // polling does not compete with the actors for the cores.
      const int us = std::min(kMaxSleepUs, 10 * (idle_rounds - kSpinRounds));
      std::this_thread::sleep_for(std::chrono::microseconds(us));
    } else {
      std::this_thread::yield();
    }
  }
}

/// Throws for a message over what one MPI send can carry.
void check_size(size_t bytes) {
  if (bytes > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw UdfError("distributed runner: a message of " + std::to_string(bytes) +
                   " bytes is over MPI's 2 GiB limit; use a smaller batch_size");
}

}  // namespace

MpiTransport::MpiTransport(int rank, int ranks)
    : rank_(rank), ranks_(ranks), state_(std::make_unique<State>()) {}

MpiTransport::~MpiTransport() { halt(std::chrono::milliseconds(0)); }

void MpiTransport::start(Handler handler) {
  State& s = *state_;
  s.handler = std::move(handler);
  std::lock_guard lock(s.mu);
  s.started = true;
  s.thread = std::thread([&s] {
    progress_loop(s);
    std::lock_guard lock(s.mu);
    s.left = true;
    s.gone.notify_all();
  });
}

void MpiTransport::send(int dest, int tag, MessageBuffer bytes) {
  check_size(bytes.size());
  State& s = *state_;
  std::lock_guard lock(s.mu);
  s.queue.push_back({dest, tag, std::move(bytes), {}});
}

void MpiTransport::send(int dest, int tag, GatherMessage message) {
  check_size(message.size());
  State& s = *state_;
  std::lock_guard lock(s.mu);
  s.queue.push_back({dest, tag, MessageBuffer(), std::move(message)});
}

namespace {

/// Waits until the progress thread has returned (up to `patience`, if given), then lets it go:
/// it makes no MPI call after saying so. Under the lock, so that stop() and halt() from two
/// threads do not both release it. False if it is still inside MPI.
bool wait_until_gone(State& s, std::optional<std::chrono::milliseconds> patience) {
  std::unique_lock lock(s.mu);
  if (!s.thread.joinable()) return s.left || !s.started;
  const auto gone = [&] { return s.left; };
  if (patience) {
    if (!s.gone.wait_for(lock, *patience, gone)) {
      s.thread.detach();  // stuck in an MPI call: the abort ends it with the process
      return false;
    }
  } else {
    s.gone.wait(lock, gone);
  }
  s.thread.detach();  // it only returns from here
  return true;
}

}  // namespace

void MpiTransport::stop() {
  State& s = *state_;
  {
    std::lock_guard lock(s.mu);
    s.stopping = true;
  }
  wait_until_gone(s, std::nullopt);
}

bool MpiTransport::halt(std::chrono::milliseconds patience) {
  State& s = *state_;
  s.halting = true;
  return wait_until_gone(s, patience);
}

}  // namespace ember::dist

#endif  // EMBER_HAVE_MPI
