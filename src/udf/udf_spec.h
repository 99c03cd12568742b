// The immutable description of a UDF behind ember::Udf.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "ember/udf.h"

namespace ember {

struct UdfSpec {
  std::string name;
  bool stateful = false;
  UdfFactory factory;                            ///< stateful
  std::string class_name;                        ///< registered name ("" if not registered)
  std::function<Column(const Batch&)> function;  ///< stateless
  std::optional<DataType> return_type;
  InitArgs init_args;
  int64_t batch_size = 4096;
  int concurrency = 1;
  double num_cpus = 1;  ///< per actor; a stateful pool holds concurrency x this
  double num_gpus = 0;
  int64_t memory_bytes = 0;
  Isolation isolation = Isolation::Thread;
  int max_retries = 0;
};


}  // namespace ember
