// Rewrite: every stateful UDF call moves out of expressions into an ActorPoolProject node, and
// every url_download into a UrlDownload node.
#pragma once

#include "plan/logical_node.h"

namespace ember {

/// Moves every stateful UDF call into its own ActorPoolProject node below the node that
/// evaluated it, which then reads the call's result as a column (`__ember_udf_<k>`). Arguments
/// that are not plain columns are computed by a projection below the pool (`__ember_arg_<k>`);
/// other columns pass through. A call whose argument is another call's result runs after it.
/// A url_download moves the same way into a UrlDownload node (`__ember_download_<k>`).
/// Output names and schemas stay as they were.
NodePtr extract_actor_pools(const NodePtr& plan);

}  // namespace ember
