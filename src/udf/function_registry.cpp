// The process-wide registry of stateless UDF functions by name (EMBER_REGISTER_FN). Registering
// one function twice is harmless; one name for two functions makes the name unusable, reported
// by Udf::fn on either (never the wrong function run on another rank).
#include "udf/function_registry.h"

#include <map>
#include <mutex>
#include <set>
#include <string_view>

#include "ember/error.h"
#include "udf/portable_function.h"

namespace ember {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, detail::UdfFunctionPointer, std::less<>> by_name;  // guarded by mu
  std::map<detail::UdfFunctionPointer, std::string> by_function;           // guarded by mu
  std::set<std::string, std::less<>> ambiguous;                            // guarded by mu
};

/// Function-local so that registrations from static initialisers in any translation unit find
/// it constructed, whatever the initialisation order.
Registry& registry() {
  static Registry r;
  return r;
}

/// The function registered under `name`, as a rank rebuilds it (the maker of the kind).
PortableFunction function_named(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.by_name.find(name);
  if (it == r.by_name.end() || r.ambiguous.count(name))
    throw InvalidArgument("no function registered as '" + std::string(name) +
                          "' in this process (EMBER_REGISTER_FN): every rank must run the "
                          "same program");
  return it->second;
}

}  // namespace

namespace detail {

bool register_udf_function(std::string name, UdfFunctionPointer function) {
  {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    r.by_function.emplace(function, name);
    auto [it, inserted] = r.by_name.emplace(name, function);
    if (!inserted && it->second != function) r.ambiguous.insert(std::move(name));
  }
  register_function_maker(kRegisteredFunctionKind, function_named);
  return true;
}

}  // namespace detail

std::string registered_function_name(detail::UdfFunctionPointer function,
                                     const std::string& udf_name) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.by_function.find(function);
  if (it == r.by_function.end()) return {};
  if (r.ambiguous.count(it->second))
    throw InvalidArgument("udf '" + udf_name +
                          "': EMBER_REGISTER_FN registered two functions as '" + it->second +
                          "'; give each function a name of its own");
  return it->second;
}

}  // namespace ember
