// The engine's way into ember::Session: the warm pools behind it.
#pragma once

#include <memory>

#include "ember/session.h"
#include "exec/warm_pools.h"

namespace ember {

struct Session::State {
  std::shared_ptr<WarmPools> pools;
};

namespace detail {

struct SessionAccess {
  /// The warm pools of `s` (shared: a running query keeps them alive past the Session).
  static std::shared_ptr<WarmPools> pools(const Session& s) { return s.state_->pools; }
  /// Makes the state behind a new session.
  static std::shared_ptr<Session::State> make_state(std::chrono::milliseconds idle_timeout) {
    auto state = std::make_shared<Session::State>();
    state->pools = std::make_shared<WarmPools>(idle_timeout);
    return state;
  }
};

}  // namespace detail
}  // namespace ember
