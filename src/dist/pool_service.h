// UDF batches of the partitions other ranks run go to the query's actor pools on rank 0, which
// dispatch them to the least-loaded actor on any rank (retries and failures handled there, as
// for rank 0's own batches). Rank 0 serves them; a worker rank calls them through proxy actors.
#pragma once

#include <cstdint>
#include <memory>

#include "dist/transport.h"
#include "exec/query_context.h"
#include "udf/actor.h"

namespace ember::dist {

/// Rank 0: serve pool calls for query `query` from `context`'s pools until close.
void open_pool_service(uint64_t query, QueryContext* context);
/// Rank 0: calls for `query` that arrive from now on fail with Cancelled. Returns once no call
/// is being handed to its pool.
void close_pool_service(uint64_t query);
/// Rank 0's transport handler for kTagPoolCall: dispatches the batch; its result goes back to
/// the rank that sent it.
void serve_pool_call(Transport& transport, Incoming message);

/// A worker rank: an actor backend that runs each batch on pool `pool` of query `query` on
/// rank 0 and waits for its result. It constructs nothing (inits() is 0).
std::unique_ptr<Actor> make_pool_service_actor(Transport& transport, uint64_t query, int pool);

/// A worker rank (the one `transport` is): an actor backend that calls the actor this rank
/// hosts under `key` directly (its batches do not pass through rank 0). It constructs nothing
/// either.
std::unique_ptr<Actor> make_own_actor_proxy(Transport& transport, uint64_t key);

}  // namespace ember::dist
