// The binary form of a Value inside a message: literals and tables in memory of a pipeline sent
// to other ranks (dist/pipeline_message.cpp), and the states of aggregates computed on one rank
// and merged on another (exec/relational).
#pragma once

#include "ember/types.h"
#include "udf/process/wire_message.h"

namespace ember {

/// Appends `v`: its alternative, then its payload (a list: its element type and its items).
void put_value(process::MessageWriter& out, const Value& v);
/// Reads what put_value wrote. Error for an alternative it does not know.
Value get_value(process::MessageReader& in);

}  // namespace ember
