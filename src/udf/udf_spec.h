// The immutable description of a UDF behind ember::Udf, and what a call expression sees of it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "core/udf_handle.h"
#include "ember/udf.h"
#include "udf/udf_access.h"

namespace ember {

struct Udf::Spec final : UdfHandle {
  std::string name;
  bool stateful = false;
  detail::UdfFactory factory;                    ///< stateful
  std::string class_name;                        ///< registered name ("" if not registered)
  std::function<Column(const Batch&)> function;  ///< stateless
  /// Stateless, when another process can rebuild `function`: the maker registered under this
  /// kind turns `portable_payload` back into it (udf/portable_function.h); "" when it cannot,
  /// and a query calling it stays on rank 0 under the cluster runner.
  std::string portable_kind;
  std::string portable_payload;
  std::optional<DataType> return_type;
  InitArgs init_args;
  int64_t batch_size = 4096;
  int concurrency = 1;        ///< actors a pool starts with and admission reserves
  int max_actors = 1;         ///< an autoscaling pool grows up to this many (>= concurrency)
  double num_cpus = 0;        ///< per actor; a stateful pool holds concurrency x this
  bool num_cpus_set = false;  ///< num_cpus() was called; unset reserves none
  double num_gpus = 0;
  int64_t memory_bytes = 0;
  Isolation isolation = Isolation::Thread;
  int max_retries = 0;
  std::chrono::milliseconds retry_initial{100};  ///< first backoff; doubles per retry
  std::chrono::milliseconds retry_max{10000};    ///< backoff ceiling
  OnError on_error = OnError::Raise;
  int64_t max_failed_rows = std::numeric_limits<int64_t>::max();  ///< Null/Skip; max = none
  std::chrono::milliseconds timeout{0};                           ///< per call; 0 = none
  int max_concurrency = 1;                                        ///< calls per actor at once
  /// What the UDF's definition needs alive while any copy of the spec exists (a Python class
  /// binding that its thread actors read from this process's registry); not a setting.
  std::shared_ptr<const void> keep_alive;

  const std::string& udf_name() const override { return name; }
  const std::optional<DataType>& declared_type() const override { return return_type; }
  bool is_stateful() const override { return stateful; }
  /// Runs `function` (see udf/udf_call.h).
  Column call_inline(const Batch& args) const override;
};

/// The settings of a UDF, as the engine names them.
using UdfSpec = detail::UdfAccess::Spec;

/// The settings behind the UDF a call expression names. Every handle in a query comes from a
/// Udf, so this is an Error only for a handle made elsewhere (a test double).
std::shared_ptr<const UdfSpec> spec_of(const std::shared_ptr<const UdfHandle>& handle);

/// `udf` with `keep` held by its spec (UdfSpec::keep_alive) for as long as any copy lives.
Udf with_keep_alive(const Udf& udf, std::shared_ptr<const void> keep);

}  // namespace ember
