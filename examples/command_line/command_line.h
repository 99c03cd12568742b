// The examples' command line: mistakes reported in one line in the program's own terms, and
// `--ranks N`, which runs the same command on N MPI ranks of this machine under mpirun.
#pragma once

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>

namespace examples {

/// Where the examples keep the files they make (default corpora, scratch directories): their
/// build folder, never the source tree or the caller's working directory.
inline constexpr const char* kBuildDir = EMBER_EXAMPLES_BUILD_DIR;

/// Accepts a whole number from `min` up to `max`. CLI11's own range check prints its bounds as
/// 300-digit doubles, so the message is ours: "expected a whole number >= 1, got '0'".
CLI::Validator whole_number_at_least(int64_t min, int64_t max = INT_MAX);

/// Accepts a finite decimal number >= 0 (CPUs may be fractional: 0.5 shares one CPU).
CLI::Validator non_negative_number();

/// Adds `--ranks N` to `app` (a whole number >= 1; 1, the default, runs here).
CLI::Option* add_ranks_option(CLI::App& app, int& ranks);

/// Parses argv into `app`'s options. Returns the status to exit with when the program is done:
/// 0 after printing --help, 2 after a mistake, printed on stderr as one line
/// "PROGRAM: WHAT (see --help)". Returns std::nullopt when the program is to go on.
std::optional<int> parse_command_line(CLI::App& app, const std::string& program, int argc,
                                      char** argv);

/// With `ranks` > 1, replaces this process by `mpirun -np RANKS` running this same binary with
/// the same arguments but --ranks (rank 0 runs the program, the others host its actors), and
/// returns only if that cannot start: the status to exit with, after one line on stderr. With
/// `ranks` == 1 returns std::nullopt at once: the program runs here. Call it after
/// ember::init() and parse_command_line(), on rank 0 (the only rank that gets there).
std::optional<int> run_on_ranks(int ranks, const std::string& program, int argc, char** argv);

}  // namespace examples
