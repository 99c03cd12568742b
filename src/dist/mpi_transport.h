// Point-to-point messages between ranks over MPI. One progress thread per process makes every
// MPI call after start-up (MPI_THREAD_SERIALIZED), so any thread may send and nobody blocks
// inside MPI; incoming messages are handed to one handler on that thread.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

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
  /// Sends everything queued, then ends the progress thread. Idempotent.
  static void stop();
};

}  // namespace ember::dist
