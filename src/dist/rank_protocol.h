// The messages between rank 0 and the ranks that host its remote actors. They reuse the
// process-isolation protocol's operations and framing (MessageWriter / MessageReader):
//   rank 0 -> rank: Init  (key, udf, class, isolation, max_retries, context, init args)
//                   Call  (key, reply rank, reply key, rows, columns) [kTagData]
//                   Stop  (key)
//   rank -> rank 0: Ready (key, inits)   Result (key, inits, one column) [kTagData]
//                   Failed (key, error code, message, retry-after ms)
//                   (a call's Result or Failed goes to its reply rank under its reply key:
//                   rank 0's remote actor, or a worker rank calling an actor of its own)
//                   Stop  (key, inits)   (the actor is destroyed)
// Every message starts with its header and the actor's key, which routes replies.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "udf/process/wire_message.h"

namespace ember::dist {

/// The key of the actor a message is for or from.
inline uint64_t message_key(std::string_view bytes) {
  process::MessageReader in(bytes);
  return in.get<uint64_t>();
}

/// A Failed message for `error` (caught on a rank), for actor `key`.
std::string failure_message(uint64_t key, const std::exception_ptr& error);

/// Re-raises a Failed message on rank 0 as the error type it was on rank `rank`, its message
/// prefixed "rank N: " (none for a negative `rank`, or a message that already names a rank): a
/// RetryAfter keeps its meaning for the pool.
[[noreturn]] void raise_failure(process::MessageReader& in, int rank);

}  // namespace ember::dist
