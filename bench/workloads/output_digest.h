// Reading a pipeline run's written CSV files back into a digest, for the agreement check.
#pragma once

#include <string>

#include "result_digest.h"

namespace bench {

/// Digests every part-*.csv under `dir` (header with columns id, z and score; no quoted
/// fields): key id, value score, aux z. Throws std::runtime_error on a missing column or file.
ResultDigest digest_pipeline_output(const std::string& dir);

}  // namespace bench
