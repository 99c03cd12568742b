// Stateless per-batch operators: projection and filter.
#pragma once

#include "ember/batch.h"
#include "exec/physical_plan.h"

namespace ember {

/// Applies a Project or Filter op to one batch. Pure: safe from any thread.
Batch apply_transform(const PhysicalOp& op, const Batch& input);

}  // namespace ember
