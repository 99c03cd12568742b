// Queries on the registry of stateful UDF classes beyond those in include/ember/udf.h.
#pragma once

#include <string>

namespace ember {

/// True when EMBER_REGISTER_UDF gave `class_name` to two different types; such a name
/// resolves to no factory.
bool udf_name_is_ambiguous(const std::string& class_name);

}  // namespace ember
