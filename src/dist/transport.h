// Point-to-point messages between the ranks of a cluster: what the runner's protocol code
// (spreading, partition workers, the pool service, hosted actors) sends and receives. The
// runner gets one Transport from whoever starts it: MpiTransport between processes under
// mpirun, LoopbackNetwork's endpoints between threads of one process in tests.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dist/message_buffer.h"
#include "udf/process/shared_region.h"

namespace ember::dist {

/// Small control messages (received into memory).
inline constexpr int kTagControl = 1;
/// Messages that carry columns (received into pooled memory that their columns then wrap).
inline constexpr int kTagData = 2;
/// Rank 0 to a worker rank: the driver's program has ended.
inline constexpr int kTagShutdown = 3;
/// Rank 0 to a worker rank: run (or stop running) a query's partitions (partition_worker.h).
inline constexpr int kTagQuery = 4;
/// A worker rank to rank 0: a UDF batch for one of a query's pools (pool_service.h).
inline constexpr int kTagPoolCall = 5;

/// Whether messages under `tag` carry columns: received into pooled memory (Incoming::data)
/// that the columns decoded from them wrap, rather than into a string.
inline bool carries_columns(int tag) { return tag == kTagData || tag == kTagPoolCall; }

/// A message sent straight from the memory its parts lie in, without copying them into one
/// buffer first: `head`, then each piece in order (MPI gathers them with a derived datatype).
/// The receiver sees the same bytes as if they had been copied together.
struct GatherMessage {
  struct Piece {
    const void* data = nullptr;
    size_t size = 0;
  };
  std::string head;
  std::vector<Piece> pieces;
  std::shared_ptr<const void> keep;  ///< holds the pieces' memory until the send completes
  size_t size() const {
    size_t n = head.size();
    for (const Piece& p : pieces) n += p.size;
    return n;
  }
};

/// One received message.
struct Incoming {
  int source = 0;
  int tag = 0;
  std::string control;                           ///< tags that carry no columns
  std::shared_ptr<process::SharedMapping> data;  ///< carries_columns(tag): from byte 0
  size_t data_size = 0;                          ///< carries_columns(tag): bytes of the message
  std::string_view bytes() const {
    return data ? std::string_view(reinterpret_cast<const char*>(data->data()), data_size)
                : std::string_view(control);
  }
};

/// One rank's end of the cluster's connections. Messages from one rank to another arrive in
/// the order they were sent; every send is queued and returns without waiting for the network.
class Transport {
 public:
  using Handler = std::function<void(Incoming)>;
  virtual ~Transport() = default;
  /// This rank's number, and how many ranks there are.
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  /// Starts delivery: `handler` is called for each message, one at a time, in arrival order, on
  /// the transport's own thread. It must not block for long (it delays every other message).
  virtual void start(Handler handler) = 0;
  /// Queues `bytes` for rank `dest`; any thread. Throws UdfError for a message too large for
  /// the transport (MPI's 2 GiB).
  virtual void send(int dest, int tag, MessageBuffer bytes) = 0;
  void send(int dest, int tag, std::string_view bytes) { send(dest, tag, MessageBuffer(bytes)); }
  /// The same for a message in pieces (a batch's columns where they lie).
  virtual void send(int dest, int tag, GatherMessage message) = 0;
  /// Sends everything queued, then ends delivery. Idempotent.
  virtual void stop() = 0;
  /// For a job being aborted: ends delivery without sending what is queued (a stopped rank may
  /// never take a send). Waits up to `patience` for the transport's thread to return (a receive
  /// from a rank stopped mid-message may never return); true if it did. Idempotent; stop()
  /// after it does nothing.
  virtual bool halt(std::chrono::milliseconds patience) = 0;
};

}  // namespace ember::dist
