// The binary form of InitArgs that crosses process and rank boundaries (layout in
// init_args.cpp).
#pragma once

#include <string>
#include <string_view>

#include "ember/udf.h"

namespace ember {

/// The compact binary encoding of `args`. InvalidArgument for a value that is not bool, an
/// integer, float64 or a string.
std::string serialize_init_args(const InitArgs& args);
/// The inverse of serialize_init_args; InvalidArgument naming what is wrong with bytes that
/// are not such an encoding.
InitArgs deserialize_init_args(std::string_view bytes);

}  // namespace ember
