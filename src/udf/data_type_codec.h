// The binary form of a DataType inside a message: a UDF's declared return type (udf_spec_codec.h)
// and the columns and casts of a pipeline sent to other ranks (dist/pipeline_message.cpp).
#pragma once

#include "ember/types.h"
#include "udf/process/wire_message.h"

namespace ember {

/// Appends `type` (its id, list size and, for a list, its element type).
void put_data_type(process::MessageWriter& out, const DataType& type);
/// Reads what put_data_type wrote.
DataType get_data_type(process::MessageReader& in);

}  // namespace ember
