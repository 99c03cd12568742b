// The examples' command line: one-line mistakes and --ranks N (see command_line.h).
#include "command_line.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <vector>

#include "ember/ember.h"

namespace examples {

namespace {

/// Whether ember was built with its MPI runner: without it, the ranks mpirun starts would each
/// run the whole program alone.
constexpr bool kHaveMpi = EMBER_EXAMPLES_HAVE_MPI;

/// One line for a command-line mistake, in the program's terms rather than CLI11's.
std::string describe(const CLI::ParseError& e, const CLI::App& app) {
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    std::string unknown;
    for (const std::string& arg : app.remaining()) unknown += (unknown.empty() ? "" : " ") + arg;
    return "unexpected argument" + std::string(app.remaining().size() == 1 ? " " : "s ") + unknown;
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    // "--batch-size: 1 required INT missing" -> "--batch-size needs a value"
    const std::string what = e.what();
    return what.substr(0, what.find(':')) + " needs a value";
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e)) {
    // "Could not convert: --progress = maybe" -> "--progress: 'maybe' is not a valid value"
    const std::string what = e.what();
    const size_t name = what.find("--"), eq = what.find(" = ");
    if (name != std::string::npos && eq != std::string::npos && eq > name)
      return what.substr(name, eq - name) + ": '" + what.substr(eq + 3) + "' is not a valid value";
  }
  return e.what();
}

}  // namespace

CLI::Validator whole_number_at_least(int64_t min, int64_t max) {
  const std::string rule = "a whole number >= " + std::to_string(min);
  return CLI::Validator(
      [rule, min, max](std::string& text) -> std::string {
        int64_t v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc::result_out_of_range || (ec == std::errc() && v > max))
          return "expected " + rule + ", got '" + text + "' (too large)";
        if (ec != std::errc() || end != text.data() + text.size() || v < min)
          return "expected " + rule + ", got '" + text + "'";
        return {};
      },
      "");
}

CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < 0)
          return "expected a number >= 0, got '" + text + "'";
        return {};
      },
      "");
}

CLI::Option* add_ranks_option(CLI::App& app, int& ranks) {
  return app
      .add_option("--ranks", ranks,
                  "run on N MPI ranks of this machine (mpirun): rank 0 runs the job, every rank "
                  "hosts actors")
      ->type_name("N")
      ->check(whole_number_at_least(1));
}

std::optional<int> parse_command_line(CLI::App& app, const std::string& program, int argc,
                                      char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "%s: %s (see --help)\n", program.c_str(), describe(e, app).c_str());
    return 2;
  }
  return std::nullopt;
}

std::optional<int> run_on_ranks(int ranks, const std::string& program, int argc, char** argv) {
  if (ranks <= 1) return std::nullopt;
  if (!kHaveMpi) {
    std::fprintf(stderr,
                 "%s: --ranks %d: this ember was built without its MPI runner (EMBER_MPI)\n",
                 program.c_str(), ranks);
    return 2;
  }
  if (const int running = ember::cluster().ranks; running > 1) {
    std::fprintf(stderr, "%s: --ranks %d: already running on %d ranks under mpirun; leave it out\n",
                 program.c_str(), ranks, running);
    return 2;
  }
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  // Ranks may outnumber this machine's cores (--oversubscribe); mpirun refuses root without
  // its flag.
  std::vector<std::string> args = {"mpirun", "--oversubscribe", "--bind-to", "none"};
  if (::geteuid() == 0) args.emplace_back("--allow-run-as-root");
  args.insert(args.end(), {"-np", std::to_string(ranks), error ? argv[0] : self.string()});
  // The same arguments but --ranks, which the ranks must not act on again.
  bool positional = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (!positional && arg == "--ranks") {
      ++i;
      continue;
    }
    if (!positional && arg.starts_with("--ranks=")) continue;
    positional = positional || arg == "--";
    args.emplace_back(arg);
  }
  std::vector<char*> c_args;
  for (std::string& arg : args) c_args.push_back(arg.data());
  c_args.push_back(nullptr);
  std::fflush(nullptr);
  ::execvp(c_args[0], c_args.data());
  std::fprintf(stderr, "%s: --ranks %d: cannot start mpirun: %s (install openmpi-bin)\n",
               program.c_str(), ranks, std::strerror(errno));
  return 1;
}

}  // namespace examples
