// Cancelled: work abandoned because its query stopped. Internal: it never escapes the public
// API, where the query reports the error that stopped it instead.
#pragma once

#include <string>

#include "ember/error.h"

namespace ember {

/// The portable code a Cancelled travels as: outside the public ErrorCode values, which users
/// see, because a cancellation is never reported to them.
inline constexpr ErrorCode kCancelledCode = static_cast<ErrorCode>(7);

/// Thrown to unwind work that its query no longer wants.
class Cancelled : public Error {
 public:
  explicit Cancelled(const std::string& m = "cancelled") : Error(m, kCancelledCode) {}
};

}  // namespace ember
