// The library's version, as CMake's project version gives it when the library is built.
#include "ember/version.h"

namespace ember {

std::string version() { return EMBER_VERSION_STRING; }

}  // namespace ember
