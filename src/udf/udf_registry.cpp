// The process-wide registry of stateful UDF classes by name (EMBER_REGISTER_UDF), which lets a
// worker process or MPI rank construct a UDF it only knows by name.
//
// Registering one type twice (e.g. the macro in a header seen by two .cpp files) is harmless.
// Registering one name for two different types is reported when it is used: the name then
// resolves to no factory, so Udf::isolation(Isolation::Process) on either type fails with a
// message saying the name is ambiguous (see udf.cpp), rather than silently constructing the
// wrong class in a worker.
#include "udf/udf_registry.h"

#include <map>
#include <mutex>
#include <set>
#include <typeindex>

#include "ember/udf.h"

namespace ember {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::pair<std::type_index, detail::UdfFactory>> by_name;
  std::map<std::type_index, std::string> by_type;
  std::set<std::string> ambiguous;
};

/// Function-local so that registrations from static initialisers in any translation unit
/// find it constructed, whatever the initialisation order.
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

namespace detail {

bool register_udf_class(std::string class_name, std::type_index type, UdfFactory factory) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  r.by_type.emplace(type, class_name);
  auto [it, inserted] = r.by_name.emplace(class_name, std::pair{type, std::move(factory)});
  if (!inserted && it->second.first != type) r.ambiguous.insert(class_name);
  return true;
}

std::string registered_udf_name(std::type_index type) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.by_type.find(type);
  return it == r.by_type.end() ? std::string() : it->second;
}

const UdfFactory* find_udf_factory(const std::string& class_name) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  if (r.ambiguous.count(class_name)) return nullptr;
  auto it = r.by_name.find(class_name);
  // std::map never moves its nodes and entries are never erased: the pointer stays valid.
  return it == r.by_name.end() ? nullptr : &it->second.second;
}

}  // namespace detail

bool udf_name_is_ambiguous(const std::string& class_name) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  return r.ambiguous.count(class_name) > 0;
}

}  // namespace ember
