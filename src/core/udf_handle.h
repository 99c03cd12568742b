// What an expression knows about the UDF it calls. Declared below both expr and udf so that
// neither needs the other: the udf layer's UdfSpec implements it.
#pragma once

#include <optional>
#include <string>

#include "ember/batch.h"
#include "ember/types.h"

namespace ember {

/// The UDF a call expression names: enough to type, print and (when stateless) run the call.
/// Stateful UDFs run in actor pools, which the plan sets up from the full UdfSpec.
class UdfHandle {
 public:
  virtual ~UdfHandle() = default;
  /// The name given to Udf::fn or Udf::cls.
  virtual const std::string& udf_name() const = 0;
  /// The type set by .returns(), if any (a call without one is rejected at plan time).
  virtual const std::optional<DataType>& declared_type() const = 0;
  /// True for a class run on an actor pool, false for a function run inline.
  virtual bool is_stateful() const = 0;
  /// Runs a stateless UDF inline over `args` (one column per argument): in chunks of its batch
  /// size, each result checked. Any failure is a UdfError naming the UDF.
  virtual Column call_inline(const Batch& args) const = 0;

 protected:
  UdfHandle() = default;
  UdfHandle(const UdfHandle&) = default;
  UdfHandle& operator=(const UdfHandle&) = default;
};

}  // namespace ember
