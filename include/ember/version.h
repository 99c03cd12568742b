/// \file
/// The version of the ember library a program runs with.
#pragma once

#include <string>

namespace ember {

/// "MAJOR.MINOR.PATCH": the version of the library the program is linked with, as CMake's
/// project version (CHANGELOG.md says what each one changed).
std::string version();

}  // namespace ember
