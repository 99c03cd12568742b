// Plan-time typing of the expression library's functions, and the checks of their constant
// arguments (a pattern that does not compile, a negative length, an unknown unit).
#pragma once

#include <optional>
#include <vector>

#include "ember/types.h"
#include "expr/expr_node.h"

namespace ember {

/// The result type of the Function node `e` whose children have types `args`. TypeError naming
/// the function and the argument types, or InvalidArgument for a bad constant argument; `root`
/// is the expression quoted in the message.
DataType function_result_type(const ExprNode& e, const std::vector<DataType>& args,
                              const ExprNode& root);

/// The type two branches of when()/coalesce()/clip() share: a Null side takes the other's type,
/// integers and floats meet at float64, int32 and int64 at int64; nullopt when they do not meet.
std::optional<DataType> common_type(const DataType& a, const DataType& b);

}  // namespace ember
