// Gathering rows by index: what explode needs to repeat a row once per item of its list.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/column.h"

namespace ember {

/// The rows `rows[0], rows[1], ...` of `c` (each in [0, c.size()), repeats allowed), copied.
Column take_rows(const Column& c, const std::vector<int64_t>& rows);

}  // namespace ember
