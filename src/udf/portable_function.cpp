// The makers of portable functions, by kind, under a lock (registered at load, looked up when
// a rank decodes a pipeline).
#include "udf/portable_function.h"

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "ember/error.h"
#include "udf/udf_spec.h"

namespace ember {

namespace {

struct Makers {
  std::mutex mu;
  std::map<std::string, FunctionMaker> by_kind;  // guarded by mu
};

Makers& makers() {
  static Makers m;
  return m;
}

}  // namespace

void register_function_maker(const std::string& kind, FunctionMaker maker) {
  std::lock_guard lock(makers().mu);
  makers().by_kind[kind] = std::move(maker);
}

PortableFunction make_portable_function(const std::string& kind, std::string_view payload) {
  FunctionMaker maker;
  {
    std::lock_guard lock(makers().mu);
    auto it = makers().by_kind.find(kind);
    if (it == makers().by_kind.end())
      throw InvalidArgument("no maker of '" + kind +
                            "' functions in this process: a UDF of that kind cannot run here");
    maker = it->second;
  }
  return maker(payload);
}

Udf with_portable_function(const Udf& udf, std::string kind, std::string payload) {
  const std::shared_ptr<const UdfSpec>& spec = detail::UdfAccess::spec(udf);
  if (spec->stateful) throw InvalidArgument("udf '" + spec->name + "' is a class, not a function");
  auto copy = std::make_shared<UdfSpec>(*spec);
  copy->portable_kind = std::move(kind);
  copy->portable_payload = std::move(payload);
  return detail::UdfAccess::make(std::move(copy));
}

}  // namespace ember
