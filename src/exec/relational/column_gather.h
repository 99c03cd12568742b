// Gathering rows by number: the output step of sorts, group-bys and joins.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/batch.h"

namespace ember {

/// Rows `rows` of `c`, in that order; a negative row number gives a null.
Column gather(const Column& c, const std::vector<int64_t>& rows);

/// gather() of every column of `b`.
Batch gather(const Batch& b, const std::vector<int64_t>& rows);

/// gather() from the concatenation of `parts` (batches of one schema, at least one), without
/// making it: fixed-width columns without nulls are read from the parts in place, so sorting
/// a partition's morsels or merging runs copies each row once instead of twice.
Batch gather(const std::vector<Batch>& parts, const std::vector<int64_t>& rows);

}  // namespace ember
