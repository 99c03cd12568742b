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

}  // namespace ember
