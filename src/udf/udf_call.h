// Calling a UDF over a batch of argument columns: shape checks and error wording shared by
// inline (stateless) calls and actor pools.
#pragma once

#include <string>

#include "ember/batch.h"
#include "ember/error.h"
#include "udf/udf_spec.h"

namespace ember {

/// Throws UdfError unless `result` has exactly `expected_rows` rows of the declared type:
/// "udf 'x' returned 10 rows of utf8, expected 12 rows of int64".
/// A list(T) result declared fixed_size_list(T, n) is converted in place when every list has n
/// items (Column::from builds list(T) from vectors).
void check_udf_result(const UdfSpec& spec, Column& result, int64_t expected_rows);
/// What a result of the wrong length is, as far as one can tell without the declared type (a
/// worker process): "returned 0 rows of int64, expected 10 rows".
std::string result_shape(const Column& result, int64_t expected_rows);
/// The UdfError for a result whose result_shape() was `shape`, as check_udf_result words it.
UdfError wrong_result(const UdfSpec& spec, const std::string& shape);
/// Input shape for error messages: "2 args (text: utf8, n: int64), 512 rows".
std::string describe_args(const Batch& args);
/// Runs a stateless UDF over `args` in chunks of spec.batch_size, checks each result and
/// concatenates. An exception from the function becomes UdfError naming the UDF, the cause and
/// the input shape.
Column call_stateless(const UdfSpec& spec, const Batch& args);

}  // namespace ember
