// Stateless UDFs that travel: a function another process of the same program can rebuild from
// bytes (a Python function, pickled), so that the cluster runner can run a query calling it on
// every rank instead of keeping it on rank 0.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "ember/batch.h"
#include "ember/udf.h"

namespace ember {

using PortableFunction = std::function<Column(const Batch&)>;
/// Rebuilds a function from its payload; throws what the payload's failure is.
using FunctionMaker = std::function<PortableFunction(std::string_view payload)>;

/// Registers `maker` for functions of `kind` (every process of the program registers the same
/// ones, e.g. when the Python module loads). A later registration of the kind replaces it.
void register_function_maker(const std::string& kind, FunctionMaker maker);

/// The function of `kind` that `payload` describes. InvalidArgument when no maker of that kind
/// is registered in this process.
PortableFunction make_portable_function(const std::string& kind, std::string_view payload);

/// `udf` (stateless) marked as rebuildable: the maker of `kind` rebuilds its function from
/// `payload` in another process.
Udf with_portable_function(const Udf& udf, std::string kind, std::string payload);

}  // namespace ember
