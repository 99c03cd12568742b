// One end of the driver<->worker control socket (AF_UNIX, SOCK_SEQPACKET): whole messages,
// optionally carrying one file descriptor (SCM_RIGHTS). A peer that dies shows up as Closed at
// once, never as a wait.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "udf/process/unique_fd.h"
#include "udf/process/wire_message.h"

namespace ember::process {

class ControlChannel {
 public:
  enum class Status { Message, Closed, TimedOut };
  using Clock = std::chrono::steady_clock;

  ControlChannel() = default;
  explicit ControlChannel(UniqueFd fd) : fd_(std::move(fd)) {}

  /// Sends one message with `attached_fd` (if >= 0) riding along. Returns false when the peer
  /// is gone (its end closed); never raises SIGPIPE. Throws Error on other failures.
  bool send(std::string_view bytes, int attached_fd = -1);
  /// Blocks until the next message (or `deadline`, when given). `*message` views it until the
  /// next receive; a descriptor that came with it lands in `*received_fd` (close-on-exec).
  /// Closed: the peer closed its end (exited or died).
  Status receive(std::string_view* message, UniqueFd* received_fd,
                 std::optional<Clock::time_point> deadline = std::nullopt);
  /// Like receive() (with `deadline`, when given), but first polls the socket (non-blocking reads,
  /// with pauses) for up to `spin`: a reply that arrives within microseconds is taken without the
  /// sleep and wake-up of a blocking read, which costs tens of microseconds on a VM whose idle
  /// vCPUs halt. A dead peer still shows up at once (end-of-file is seen while polling too).
  Status receive_soon(std::string_view* message, UniqueFd* received_fd,
                      std::chrono::nanoseconds spin,
                      std::optional<Clock::time_point> deadline = std::nullopt);

  int fd() const { return fd_.get(); }

 private:
  bool wait_readable(Clock::time_point deadline);
  /// One recvmsg; `flags` adds MSG_DONTWAIT for a poll. nullopt: nothing there yet.
  std::optional<Status> read_one(std::string_view* message, UniqueFd* received_fd, int flags);
  UniqueFd fd_;
  /// Reused for every message: receiving allocates nothing.
  std::unique_ptr<char[]> buffer_ = std::make_unique<char[]>(kMaxMessageBytes);
};

}  // namespace ember::process
