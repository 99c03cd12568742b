// Rank 0's cluster runtime: remote actors made through its transport, spread runs started on it.
#include "dist/transport_runtime.h"

#include <memory>
#include <utility>

#include "dist/pool_service.h"
#include "dist/remote_actor.h"

namespace ember::dist {

TransportRuntime::TransportRuntime(Transport& transport, std::vector<RankResources> members)
    : ranks_(transport.ranks()),
      placer_(std::move(members),
              [&transport](std::shared_ptr<const UdfSpec> spec, ActorContext ctx, int rank,
                           std::stop_token) {
                return make_remote_actor(transport, std::move(spec), std::move(ctx), rank);
              }),
      spreader_(transport) {}

void serve_rank_zero(Transport& transport, Incoming message) {
  if (message.tag == kTagPoolCall)
    serve_pool_call(transport, std::move(message));
  else
    route_reply(std::move(message));
}

}  // namespace ember::dist
