// A UDF's settings written down once: the bytes that carry them to other ranks and hosted
// actors, the text explain() shows for a pool, and the key that warm-pool matching compares.
// Every setting of Udf::Spec is here; a field added there is added here (tests/udf check).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "udf/udf_spec.h"

namespace ember {

/// Every setting of `spec` that can travel to another process or rank: name, class, return
/// type, init args, batch size, actors, resources, isolation, retries, failure policy, timeout
/// and calls per actor; for a stateless UDF whose function can be rebuilt elsewhere
/// (udf/portable_function.h), its kind and payload. Not the factory: decode finds it again by
/// class name. UdfError for any other stateless UDF (Udf::fn), whose function cannot leave
/// this process; InvalidArgument for init args that cannot be encoded.
std::string encode_udf_spec(const UdfSpec& spec);

/// The settings encode_udf_spec wrote, with the factory registered in this binary under their
/// class name (a portable function: rebuilt by the maker of its kind). UdfError naming the
/// class when it is not registered here; InvalidArgument when no maker of the function's kind
/// is; Error for bytes that are not such an encoding.
std::shared_ptr<UdfSpec> decode_udf_spec(std::string_view bytes);

/// How explain() describes the pool of `spec`: "speller: concurrency 2, batch size 4096, ...".
std::string describe_udf_spec(const UdfSpec& spec);

/// Equal for two specs exactly when a warm pool of one can serve the other: every setting
/// encode_udf_spec carries, and the very factory (the same C++ type behind the class name).
/// UdfError for a stateless UDF, which has no pool.
std::string udf_pool_key(const UdfSpec& spec);

}  // namespace ember
