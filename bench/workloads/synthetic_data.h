// Deterministic generated inputs for the cpu-heavy and pipeline workloads.
#pragma once

#include <cstdint>
#include <string>

namespace bench {

/// Writes `rows` lines "id,text" (with a header) where text is 80-160 bytes of lower-case words
/// and spaces: nothing a CSV reader must unquote, so every system parses it the same way.
void write_strings_csv(const std::string& path, int64_t rows, uint64_t seed);

/// Writes rows "id,category,x,y,text" (header first) until the file holds at least `bytes`
/// bytes. category is cat_00..cat_15, x a float in [0,1) with 6 decimals, y an int in
/// [-50000, 50000), text 40-120 bytes of words. Returns the rows written.
int64_t write_pipeline_csv(const std::string& path, int64_t bytes, uint64_t seed);

}  // namespace bench
