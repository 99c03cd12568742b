// The cluster's transport under mpirun: point-to-point MPI messages. One progress thread per
// process makes every MPI call after start-up (MPI_THREAD_SERIALIZED), so any thread may send
// and nobody blocks inside MPI; incoming messages are handed to one handler on that thread.
#pragma once

#include <memory>

#include "dist/transport.h"

namespace ember::dist {

/// MPI must be initialised (launch.cpp) before one is made, and only one is made per process.
class MpiTransport final : public Transport {
 public:
  MpiTransport(int rank, int ranks);
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  void start(Handler handler) override;
  void send(int dest, int tag, MessageBuffer bytes) override;
  using Transport::send;
  void send(int dest, int tag, GatherMessage message) override;
  void stop() override;
  bool halt(std::chrono::milliseconds patience) override;

  struct State;

 private:
  const int rank_;
  const int ranks_;
  std::unique_ptr<State> state_;
};

}  // namespace ember::dist
