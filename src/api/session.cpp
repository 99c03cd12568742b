// ember::Session: the public face of a session's warm actor pools (exec/warm_pools.h).
#include "ember/session.h"

#include "ember/error.h"
#include "exec/session_access.h"

namespace ember {

Session::Session(SessionOptions options) {
  if (options.idle_timeout.count() < 0)
    throw InvalidArgument("SessionOptions::idle_timeout must be >= 0 ms, got " +
                          std::to_string(options.idle_timeout.count()) + " ms");
  state_ = detail::SessionAccess::make_state(options.idle_timeout);
}

Session::~Session() { close(); }

void Session::close() { state_->pools->close(); }

SessionStats Session::stats() const { return state_->pools->stats(); }

}  // namespace ember
