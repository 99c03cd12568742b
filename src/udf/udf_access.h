// The engine's way into ember::Udf: reading the settings a Udf was built with, which the public
// API keeps private.
#pragma once

#include <memory>

#include "ember/udf.h"

namespace ember::detail {

/// What the engine may do with a Udf that the public API does not offer.
struct UdfAccess {
  using Spec = Udf::Spec;
  /// The settings of `u`.
  static const std::shared_ptr<const Spec>& spec(const Udf& u) { return u.spec_; }
  /// A Udf with settings `spec`.
  static Udf make(std::shared_ptr<const Spec> spec) { return Udf(std::move(spec)); }
};

}  // namespace ember::detail
