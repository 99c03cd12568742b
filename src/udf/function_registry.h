// Stateless UDF functions registered by name (EMBER_REGISTER_FN): every process of the program
// registers the same ones at start-up, so a rank rebuilds a call to one from its name alone.
#pragma once

#include <string>

#include "ember/udf.h"

namespace ember {

/// The portable-function kind (udf/portable_function.h) of a registered C++ function; its payload
/// is the name.
inline constexpr const char* kRegisteredFunctionKind = "c++";

/// The name `function` was registered under, or "" when it was not. InvalidArgument (naming
/// `udf_name`) when that name was also given to another function.
std::string registered_function_name(detail::UdfFunctionPointer function,
                                     const std::string& udf_name);

}  // namespace ember
