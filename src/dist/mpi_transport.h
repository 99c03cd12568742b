// Point-to-point messages between ranks over MPI. One progress thread per process makes every
// MPI call after start-up (MPI_THREAD_SERIALIZED), so any thread may send and nobody blocks
// inside MPI; incoming messages are handed to one handler on that thread.
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
  std::string control;                           ///< kTagControl, kTagShutdown
  std::shared_ptr<process::SharedMapping> data;  ///< kTagData, kTagPoolCall: from byte 0
  size_t data_size = 0;                          ///< kTagData: bytes of the message
  std::string_view bytes() const {
    return data ? std::string_view(reinterpret_cast<const char*>(data->data()), data_size)
                : std::string_view(control);
  }
};

/// The process's transport (MPI must be initialised; see launch.h).
class Transport {
 public:
  using Handler = std::function<void(Incoming)>;
  /// Starts the progress thread, which calls `handler` for each message, in arrival order. The
  /// handler must not block for long (it delays every other message).
  static void start(Handler handler);
  /// Queues `bytes` for rank `dest`; any thread. Never blocks on the network.
  static void send(int dest, int tag, MessageBuffer bytes);
  static void send(int dest, int tag, std::string_view bytes) {
    send(dest, tag, MessageBuffer(bytes));
  }
  /// The same for a message in pieces (a batch's columns where they lie).
  static void send(int dest, int tag, GatherMessage message);
  /// Sends everything queued, then ends the progress thread. Idempotent.
  static void stop();
  /// For a job being aborted: ends the progress thread without sending what is queued (a
  /// stopped rank may never take a send), so that MPI_Abort is the only MPI call under way.
  /// Waits up to `patience` for the thread to leave MPI (a receive from a rank stopped mid-
  /// message never returns); true if it did. Idempotent; stop() after it does nothing.
  static bool halt(std::chrono::milliseconds patience);
};

}  // namespace ember::dist
