// README.md cannot drift from the code: every ```cpp block in it is a verbatim excerpt of a file
// under examples/ (which the build compiles and tests/examples runs) or else compiles and links
// as a complete program; every ```cmake block is an excerpt of a project the tests build.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct CodeBlock {
  std::string language;
  int line = 0;  // of the opening fence, 1-based
  std::vector<std::string> lines;
};

std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<CodeBlock> fenced_blocks(const std::vector<std::string>& markdown) {
  std::vector<CodeBlock> blocks;
  bool inside = false;
  for (size_t i = 0; i < markdown.size(); ++i) {
    const std::string& line = markdown[i];
    if (!inside && line.rfind("```", 0) == 0) {
      blocks.push_back({line.substr(3), static_cast<int>(i + 1), {}});
      inside = true;
    } else if (inside && line.rfind("```", 0) == 0) {
      inside = false;
    } else if (inside) {
      blocks.back().lines.push_back(line);
    }
  }
  return blocks;
}

/// True if `block` appears as consecutive whole lines of `file`, all indented alike there (a
/// README may quote the body of a function without its indentation).
bool is_excerpt(const std::vector<std::string>& block, const std::vector<std::string>& file) {
  if (block.empty() || block.size() > file.size()) return false;
  for (size_t start = 0; start + block.size() <= file.size(); ++start) {
    const std::string& first = file[start];
    if (first.size() < block[0].size() ||
        first.compare(first.size() - block[0].size(), std::string::npos, block[0]) != 0)
      continue;
    const std::string indent = first.substr(0, first.size() - block[0].size());
    if (indent.find_first_not_of(' ') != std::string::npos) continue;
    size_t n = 0;
    while (n < block.size() &&
           (file[start + n] == indent + block[n] || (block[n].empty() && file[start + n].empty())))
      ++n;
    if (n == block.size()) return true;
  }
  return false;
}

/// The file under `dir` whose name satisfies `wanted` and that holds `block`, or "".
template <class Wanted>
std::string file_holding(const std::vector<std::string>& block, const fs::path& dir,
                         Wanted wanted) {
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && wanted(entry.path()) &&
        is_excerpt(block, read_lines(entry.path())))
      return entry.path().string();
  }
  return {};
}

bool is_cpp_source(const fs::path& p) { return p.extension() == ".cpp" || p.extension() == ".h"; }

bool is_cmake_project(const fs::path& p) { return p.filename() == "CMakeLists.txt"; }

/// Compiles and links `block` against the built library; returns the compiler's output on
/// failure, "" on success.
std::string compile_program(const CodeBlock& block) {
  const fs::path dir =
      fs::path(EMBER_READMETEST_WORK_DIR) / ("block-" + std::to_string(block.line));
  fs::create_directories(dir);
  {
    std::ofstream src(dir / "main.cpp");
    for (const std::string& line : block.lines) src << line << '\n';
  }
  const std::string log = (dir / "compile.log").string();
  const std::string command = std::string("sh '") + EMBER_READMETEST_COMPILE_SCRIPT + "' '" +
                              (dir / "main.cpp").string() + "' '" + (dir / "program").string() +
                              "' >'" + log + "' 2>&1";
  if (std::system(command.c_str()) == 0) return {};
  std::ifstream in(log);
  std::stringstream out;
  out << in.rdbuf();
  return out.str().empty() ? "the compiler failed" : out.str();
}

const fs::path kSource = EMBER_SOURCE_DIR;

std::vector<CodeBlock> readme_blocks(const std::string& language) {
  std::vector<CodeBlock> out;
  for (CodeBlock& b : fenced_blocks(read_lines(kSource / "README.md")))
    if (b.language == language) out.push_back(std::move(b));
  return out;
}

TEST(Readme, EveryCppBlockIsAnExampleExcerptOrACompleteProgram) {
  const std::vector<CodeBlock> blocks = readme_blocks("cpp");
  ASSERT_FALSE(blocks.empty()) << "README.md has no ```cpp block: is this the right file?";
  for (const CodeBlock& block : blocks) {
    if (!file_holding(block.lines, kSource / "examples", is_cpp_source).empty()) continue;
    const std::string error = compile_program(block);
    EXPECT_TRUE(error.empty()) << "README.md:" << block.line
                               << ": a ```cpp block that is neither an excerpt of a file under "
                                  "examples/ nor a program that compiles:\n"
                               << error;
  }
}

TEST(Readme, UsingEmberShowsAWholeProgramThatTheTestsRun) {
  const std::vector<std::string> readme = read_lines(kSource / "README.md");
  const std::vector<std::string> program = read_lines(kSource / "examples/using_ember/main.cpp");
  size_t section = 0;
  while (section < readme.size() && readme[section] != "## Using ember") ++section;
  ASSERT_LT(section, readme.size()) << "README.md lost its \"## Using ember\" section";
  std::vector<std::string> rest(readme.begin() + static_cast<long>(section), readme.end());
  std::vector<CodeBlock> blocks = fenced_blocks(rest);
  ASSERT_FALSE(blocks.empty());
  EXPECT_EQ(blocks.front().language, "cpp");
  EXPECT_EQ(blocks.front().lines, program)
      << "the first block under \"Using ember\" must be examples/using_ember/main.cpp, whole";
}

TEST(Readme, EveryCMakeBlockIsAnExcerptOfATestedProject) {
  for (const CodeBlock& block : readme_blocks("cmake")) {
    const bool found =
        !file_holding(block.lines, kSource / "examples", is_cmake_project).empty() ||
        !file_holding(block.lines, kSource / "tests/install", is_cmake_project).empty();
    EXPECT_TRUE(found) << "README.md:" << block.line
                       << ": a ```cmake block found in no CMakeLists.txt under examples/ or "
                          "tests/install/";
  }
}

TEST(Readme, AnExcerptMayBeDedentedButNotChanged) {
  const std::vector<std::string> file = {"int f() {", "  int x = 1;", "", "  return x;", "}"};
  EXPECT_TRUE(is_excerpt({"int x = 1;", "", "return x;"}, file));
  EXPECT_TRUE(is_excerpt(file, file));
  EXPECT_FALSE(is_excerpt({"int x = 2;", "", "return x;"}, file));
  EXPECT_FALSE(is_excerpt({"int x = 1;", "return x;"}, file));
  EXPECT_FALSE(is_excerpt({"int x = 1;", "", "  return x;"}, file));
}

TEST(Readme, TheCheckRejectsABlockThatIsNeitherExcerptNorProgram) {
  CodeBlock invented{
      "cpp", 0, {"struct Speller {", "  explicit Speller(const ember::InitArgs& a);", "};"}};
  EXPECT_TRUE(file_holding(invented.lines, kSource / "examples", is_cpp_source).empty());
  EXPECT_FALSE(compile_program(invented).empty()) << "a fragment must not pass as a program";
  CodeBlock program{"cpp",
                    -1,
                    {"#include <ember/ember.h>",
                     "int main() { return ember::range(3).collect().num_rows() == 3 ? 0 : 1; }"}};
  EXPECT_EQ(compile_program(program), "");
}

}  // namespace
