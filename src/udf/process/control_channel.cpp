// SOCK_SEQPACKET send/receive with SCM_RIGHTS descriptor passing.
#include "udf/process/control_channel.h"

#include <poll.h>
#include <sched.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ember/error.h"

namespace ember::process {

namespace {

/// A spin-wait hint: lets the sibling hyperthread run and saves power while polling.
inline void pause_cpu() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

[[noreturn]] void fail(const char* what) {
  throw Error(std::string("process isolation: ") + what +
              " on the worker socket failed: " + std::strerror(errno));
}

}  // namespace

bool ControlChannel::send(std::string_view bytes, int attached_fd) {
  iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  if (attached_fd >= 0) {
    std::memset(control, 0, sizeof(control));
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &attached_fd, sizeof(int));
  }
  for (;;) {
    if (::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL) >= 0) return true;
    if (errno == EINTR) continue;
    if (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN) return false;
    fail("sendmsg");
  }
}

bool ControlChannel::wait_readable(Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_.get(), POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
    if (n > 0) return true;  // readable, or hung up: recvmsg tells which
    if (n < 0 && errno != EINTR) fail("poll");
  }
}

ControlChannel::Status ControlChannel::receive(std::string_view* message, UniqueFd* received_fd,
                                               std::optional<Clock::time_point> deadline) {
  if (deadline && !wait_readable(*deadline)) return Status::TimedOut;
  for (;;) {
    if (auto status = read_one(message, received_fd, 0)) return *status;
  }
}

ControlChannel::Status ControlChannel::receive_soon(std::string_view* message,
                                                    UniqueFd* received_fd,
                                                    std::chrono::nanoseconds spin,
                                                    std::optional<Clock::time_point> deadline) {
  const auto give_up = Clock::now() + spin;
  for (;;) {
    if (auto status = read_one(message, received_fd, MSG_DONTWAIT)) return *status;
    if (Clock::now() >= give_up) break;
    // Between polls, let any other thread waiting for this CPU run first: when the machine is
    // busy, the peer is often queued on this very CPU, and a spin that kept it waiting would
    // cost the whole spin instead of saving a wake-up.
    ::sched_yield();
    pause_cpu();
  }
  return receive(message, received_fd, deadline);
}

std::optional<ControlChannel::Status> ControlChannel::read_one(std::string_view* message,
                                                               UniqueFd* received_fd, int flags) {
  iovec iov{buffer_.get(), kMaxMessageBytes};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  const ssize_t n = ::recvmsg(fd_.get(), &msg, MSG_CMSG_CLOEXEC | flags);
  if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return std::nullopt;
  if (n < 0 && errno == ECONNRESET) return Status::Closed;
  if (n < 0) fail("recvmsg");
  // Adopt a passed descriptor first, so that it is closed on every path below.
  UniqueFd passed;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
      passed.reset(fd);
    }
  }
  if (n == 0) return Status::Closed;  // every message has a header, so 0 bytes means EOF
  if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
    throw Error("process isolation: oversized control message from the peer");
  }
  *message = std::string_view(buffer_.get(), static_cast<size_t>(n));
  if (received_fd != nullptr) *received_fd = std::move(passed);
  return Status::Message;
}

}  // namespace ember::process
