// C++ UDF classes from a shared library (ember.load_udfs + ember.udf): a registered wrapper
// that constructs, by name, a class the library registered with EMBER_REGISTER_UDF. In a
// worker process the library is loaded again before the class is looked up.
#include "native_udf.h"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "ember/ember.h"

namespace ember::python {

namespace {

/// The factory registered under `class_name`, loading `library` first when it is not there.
const detail::UdfFactory& factory_for(const std::string& class_name, const std::string& library) {
  const detail::UdfFactory* found = detail::find_udf_factory(class_name);
  if (found == nullptr && !library.empty()) {
    load_udf_library(library);
    found = detail::find_udf_factory(class_name);
  }
  if (found == nullptr)
    throw UdfError("no UDF class '" + class_name + "' is registered" +
                   (library.empty() ? std::string(" (load its library with ember.load_udfs)")
                                    : " in " + library + " (EMBER_REGISTER_UDF(" + class_name +
                                          ") in one of its .cpp files?)"));
  return *found;
}

/// The user's init args: every key but the wrapper's own.
InitArgs user_args(const InitArgs& args) {
  std::map<std::string, Value> items;
  for (const auto& [k, v] : args.items())
    if (k != kNativeClassKey && k != kNativeLibraryKey) items.emplace(k, v);
  return InitArgs(std::move(items));
}

/// Constructs the named class; calls go to it.
class NativeUdf {
 public:
  NativeUdf(const InitArgs& args, const ActorContext& actor)
      : inner_(factory_for(args.get<std::string>(kNativeClassKey),
                           args.has(kNativeLibraryKey) ? args.get<std::string>(kNativeLibraryKey)
                                                       : "")(user_args(args), actor)) {}
  Column operator()(const Batch& args) { return inner_->call(args); }

 private:
  std::unique_ptr<detail::UdfInstance> inner_;
};

EMBER_REGISTER_UDF(NativeUdf);

}  // namespace

Udf native_udf(std::string name, InitArgs args) {
  return Udf::cls<NativeUdf>(std::move(name)).init_args(std::move(args));
}

void load_udf_library(const std::string& path) {
  // RTLD_GLOBAL: the library's references to ember (the registry) bind to this extension's.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) throw IoError("cannot load UDF library " + path + ": " + ::dlerror());
}

}  // namespace ember::python
