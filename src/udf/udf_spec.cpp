// What a call expression reaches of a UdfSpec: its inline call, and the way back to the spec.
#include "udf/udf_spec.h"

#include "udf/udf_call.h"

namespace ember {

Column Udf::Spec::call_inline(const Batch& args) const { return call_stateless(*this, args); }

std::shared_ptr<const UdfSpec> spec_of(const std::shared_ptr<const UdfHandle>& handle) {
  auto spec = std::dynamic_pointer_cast<const UdfSpec>(handle);
  if (!spec) throw Error("udf '" + handle->udf_name() + "' was not built by ember::Udf");
  return spec;
}

Udf with_keep_alive(const Udf& udf, std::shared_ptr<const void> keep) {
  auto copy = std::make_shared<UdfSpec>(*detail::UdfAccess::spec(udf));
  copy->keep_alive = std::move(keep);
  return detail::UdfAccess::make(std::move(copy));
}

}  // namespace ember
