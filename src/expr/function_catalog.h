// The names of the expression library's functions, as users write them.
#pragma once

#include "expr/function_id.h"

namespace ember {

/// The C++ name: "str_lower", "when", "cosine_similarity".
const char* function_name(FunctionId f);

/// Whether it is written as a method of its first argument (x.str_lower()) rather than as a free
/// function (when(c, a, b)).
bool is_method(FunctionId f);

}  // namespace ember
