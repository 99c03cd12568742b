// A filter that a CSV reader applies while it parses (late materialisation): the columns the
// predicate reads are parsed for every row, the others only for the rows it keeps.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ember/batch.h"

namespace ember {

struct CsvRowFilter {
  /// The schema positions of the columns the predicate reads, ascending.
  std::vector<int> columns;
  /// Sets keep[i] to 1 for each row of `batch` (those columns, in that order) to keep, else 0.
  std::function<void(const Batch& batch, std::vector<uint8_t>& keep)> keep;
};

}  // namespace ember
