// Start-up for process isolation: returns at once in a driver (after recording argv); in a
// worker process it serves the driver over the inherited socket and exits without returning.
#include "udf/process/worker_entry.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "udf/process/worker_process.h"
#include "udf/process/worker_server.h"

namespace ember {

namespace process {
namespace {

struct CommandLineRecord {
  std::mutex mutex;
  std::optional<std::vector<std::string>> argv;
};

CommandLineRecord& record() {
  static CommandLineRecord r;
  return r;
}

/// The control socket a driver handed down, or -1 when this is no worker.
int inherited_control_socket() {
  const char* text = std::getenv(kWorkerFdVariable);
  if (text == nullptr) return -1;
  char* end = nullptr;
  const long fd = std::strtol(text, &end, 10);
  int type = 0;
  socklen_t len = sizeof(type);
  struct stat st {};
  const bool valid = end != text && *end == '\0' && fd >= 0 && fd < (1 << 20) &&
                     ::fstat(static_cast<int>(fd), &st) == 0 && S_ISSOCK(st.st_mode) &&
                     ::getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
                     type == SOCK_SEQPACKET;
  if (!valid) {
    // A stray variable (exported by hand, say) must not turn a program into a worker.
    std::fprintf(stderr,
                 "ember: ignoring %s=%s: it is set only in worker processes an ember driver "
                 "starts, and no such socket is open here\n",
                 kWorkerFdVariable, text);
    ::unsetenv(kWorkerFdVariable);
    return -1;
  }
  return static_cast<int>(fd);
}

}  // namespace

std::optional<std::vector<std::string>> recorded_command_line() {
  std::lock_guard lock(record().mutex);
  return record().argv;
}

bool is_unserved_worker() { return std::getenv(kWorkerFdVariable) != nullptr; }

void enter_from_main(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 0; i < argc && argv != nullptr && argv[i] != nullptr; ++i)
    args.emplace_back(argv[i]);
  {
    std::lock_guard lock(record().mutex);
    record().argv = std::move(args);
  }
  const int control = inherited_control_socket();
  if (control < 0) return;
  // From here on this process is a worker: processes its UDF starts are not, and they must not
  // inherit the socket.
  ::unsetenv(kWorkerFdVariable);
  ::fcntl(control, F_SETFD, FD_CLOEXEC);
  serve_as_worker(control);
}

}  // namespace process
}  // namespace ember
