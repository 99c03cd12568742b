// A "generation" of output: a write of `rows` rows whose every row carries the generation
// number, so that a directory mixing two writes, or missing part of one, is detectable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ember::soak {

/// What one complete write looks like. Its size follows from its number, so a directory can be
/// checked against the generation its rows claim to be.
struct Generation {
  int64_t gen = 0;
  int64_t rows = 0;
  int parts = 0;
};

/// Generation `gen`: 1,000 to 40,999 rows in 1 to 8 partitions.
Generation make_generation(int64_t gen);

/// The query that writes generation `g` to `dir` (CSV, columns id, gen, y = id + 1 through a
/// process-isolated UDF). `crash_per_mille` > 0 uses FlakyIncrement; else SlowIncrement with
/// `sleep_us` per batch. Throws what the query throws.
void write_generation(const std::string& dir, const Generation& g, int64_t crash_per_mille,
                      int64_t sleep_us);

/// Reads `dir` back and returns the generation it holds completely (every file of every
/// partition, nothing else), std::nullopt when the
/// directory does not exist. Throws std::runtime_error describing the damage when the directory
/// holds anything else: rows of two generations, missing or duplicated ids, a wrong row count,
/// foreign or temporary files.
std::optional<Generation> read_generation(const std::string& dir);

/// Entries beside `dir` in its parent, which holds nothing else in the soak: staging debris of
/// an interrupted write. Empty when there is none.
std::string debris_beside(const std::string& dir);

}  // namespace ember::soak
