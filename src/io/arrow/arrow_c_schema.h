// The schema of an Arrow C stream (ArrowSchema format strings) as the fields the batch decoder
// reads: every type the IPC reader takes becomes the same ember type by the same rules.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "io/arrow/arrow_c_abi.h"
#include "io/arrow/arrow_field.h"

namespace ember::arrow_ipc {

/// A record batch's columns, and the values of each dictionary-encoded field by the id given to
/// it here (in the order the fields come, depth first).
struct CSchema {
  std::vector<ArrowField> fields;
  std::map<int64_t, ArrowField> dictionary_values;
};

/// The columns of a stream whose schema is `record` (a struct, format "+s"). Throws
/// InvalidArgument naming the column and its format for a type ember does not read (union,
/// interval, run-end encoding, an unknown format) or a malformed schema.
CSchema map_c_schema(const ArrowSchema& record);

}  // namespace ember::arrow_ipc
