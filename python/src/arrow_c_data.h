// The Arrow C Data Interface and C Stream Interface structs (https://arrow.apache.org/docs/
// format/CDataInterface.html), and ember's export of tables through them (the import is the
// engine's, io/arrow/arrow_c_import.h).
#pragma once

#include <cstdint>

#include "ember/ember.h"
#include "io/arrow/arrow_c_abi.h"

namespace ember::python {

/// Fills `out` with a stream of `table`'s batches, one struct array each. The arrays point at
/// the columns' own buffers (no copy) and keep them alive until released.
void export_table_stream(Table table, ArrowArrayStream* out);

}  // namespace ember::python
