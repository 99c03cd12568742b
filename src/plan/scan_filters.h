// Hands each filter that sits directly on a scan to the scan, which may then skip parts (row
// groups) that cannot match; the filter itself stays.
#pragma once

#include "plan/logical_node.h"

namespace ember {

NodePtr push_filters_into_scans(const NodePtr& plan);

}  // namespace ember
