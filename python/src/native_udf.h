// C++ UDF classes from shared libraries, used from Python by their registered names.
#pragma once

#include <string>

#include "ember/ember.h"

namespace ember::python {

/// Init-arg keys of the registered wrapper "NativeUdf": the class to construct, and the
/// library that registers it (loaded in a worker process before the class is looked up).
inline constexpr char kNativeClassKey[] = "__ember_class__";
inline constexpr char kNativeLibraryKey[] = "__ember_library__";
/// The class name the wrapper is registered under.
inline constexpr char kNativeUdfClass[] = "NativeUdf";

/// A stateful Udf called `name` that constructs the registered class named in `args`
/// (kNativeClassKey), loading kNativeLibraryKey first where it is not registered yet.
Udf native_udf(std::string name, InitArgs args);

/// dlopen()s a library whose static initialisers register UDF classes (EMBER_REGISTER_UDF),
/// with RTLD_GLOBAL so that they register with this extension's ember. IoError on failure.
void load_udf_library(const std::string& path);

}  // namespace ember::python
