// README.md and the guide in docs/ cannot drift from the code: every ```cpp block of every
// markdown file is a verbatim excerpt of a file under examples/ (which the build compiles and
// tests/examples runs) or else compiles and links as a complete program; every ```cmake block is
// an excerpt of a project the tests build; every relative link leads to a file that exists; and
// every benchmark table says which bench/ command produced it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kSource = EMBER_SOURCE_DIR;

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

/// The lines of `markdown` outside fenced blocks, each with its 1-based line number.
std::vector<std::pair<int, std::string>> prose_lines(const std::vector<std::string>& markdown) {
  std::vector<std::pair<int, std::string>> out;
  bool inside = false;
  for (size_t i = 0; i < markdown.size(); ++i) {
    if (markdown[i].rfind("```", 0) == 0) {
      inside = !inside;
    } else if (!inside) {
      out.emplace_back(static_cast<int>(i + 1), markdown[i]);
    }
  }
  return out;
}

/// True if `block` appears as consecutive whole lines of `file`, all indented alike there (a
/// markdown file may quote the body of a function without its indentation).
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

/// `text` with every character that is not a letter or a digit replaced by '_': a folder name.
std::string identifier(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return out;
}

/// Compiles and links `block` against the built library, in a folder named after `name`;
/// returns the compiler's output on failure, "" on success.
std::string compile_program(const CodeBlock& block, const std::string& name) {
  const fs::path dir = fs::path(EMBER_READMETEST_WORK_DIR) / identifier(name);
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

/// README.md and every markdown file under docs/, as paths relative to the source tree, sorted.
std::vector<std::string> markdown_files() {
  std::vector<std::string> files = {"README.md"};
  for (const auto& entry : fs::recursive_directory_iterator(kSource / "docs"))
    if (entry.is_regular_file() && entry.path().extension() == ".md")
      files.push_back(fs::relative(entry.path(), kSource).string());
  std::sort(files.begin() + 1, files.end());
  return files;
}

/// A place in a markdown file, as failures name it: "docs/udfs.md:42".
std::string where(const std::string& markdown, int line) {
  return markdown + ":" + std::to_string(line);
}

/// The fenced blocks of `markdown` (a path relative to the source tree) in `language`.
std::vector<CodeBlock> blocks_of(const std::string& markdown, const std::string& language) {
  std::vector<CodeBlock> out;
  for (CodeBlock& b : fenced_blocks(read_lines(kSource / markdown)))
    if (b.language == language) out.push_back(std::move(b));
  return out;
}

// Each check reads the markdown files when it runs, so a chapter added to docs/ is checked
// without rebuilding this test.

TEST(Docs, EveryCppBlockIsAnExampleExcerptOrACompleteProgram) {
  for (const std::string& markdown : markdown_files()) {
    for (const CodeBlock& block : blocks_of(markdown, "cpp")) {
      if (!file_holding(block.lines, kSource / "examples", is_cpp_source).empty()) continue;
      const std::string error = compile_program(block, where(markdown, block.line));
      EXPECT_TRUE(error.empty()) << where(markdown, block.line)
                                 << ": a ```cpp block that is neither an excerpt of a file under "
                                    "examples/ nor a program that compiles:\n"
                                 << error;
    }
  }
}

TEST(Docs, EveryCMakeBlockIsAnExcerptOfATestedProject) {
  for (const std::string& markdown : markdown_files()) {
    for (const CodeBlock& block : blocks_of(markdown, "cmake")) {
      const bool found =
          !file_holding(block.lines, kSource / "examples", is_cmake_project).empty() ||
          !file_holding(block.lines, kSource / "tests/install", is_cmake_project).empty();
      EXPECT_TRUE(found) << where(markdown, block.line)
                         << ": a ```cmake block found in no CMakeLists.txt under examples/ or "
                            "tests/install/";
    }
  }
}

TEST(Docs, EveryRelativeLinkLeadsToAFile) {
  for (const std::string& markdown : markdown_files()) {
    const fs::path dir = (kSource / markdown).parent_path();
    for (const auto& [line, text] : prose_lines(read_lines(kSource / markdown))) {
      for (size_t at = text.find("]("); at != std::string::npos; at = text.find("](", at + 2)) {
        const size_t end = text.find(')', at + 2);
        if (end == std::string::npos) continue;
        std::string target = text.substr(at + 2, end - at - 2);
        target = target.substr(0, target.find('#'));  // an anchor inside the file is not checked
        if (target.empty() || target.find("://") != std::string::npos) continue;
        EXPECT_TRUE(fs::exists(dir / target))
            << where(markdown, line) << ": the link to '" << target << "' leads to no file";
      }
    }
  }
}

/// A benchmark prints ratios to a baseline measured in the same run (bench/), so a table whose
/// header has a "ratio" column holds benchmark figures; the text from the heading above it to
/// its last row must name the bench/ command that produced them.
TEST(Docs, EveryBenchmarkTableNamesItsBenchCommand) {
  for (const std::string& markdown : markdown_files()) {
    bool section_names_bench = false;
    int table_line = 0;  // of the current table's header row; 0 outside a table
    bool table_has_ratio = false;
    auto end_table = [&] {
      EXPECT_TRUE(table_line == 0 || !table_has_ratio || section_names_bench)
          << where(markdown, table_line)
          << ": a table of benchmark figures (it has a ratio column) whose section names no "
             "bench/ command that reproduces them";
      table_line = 0;
    };
    for (const auto& [line, text] : prose_lines(read_lines(kSource / markdown))) {
      if (text.rfind("#", 0) == 0) section_names_bench = false;
      if (text.find("bench/") != std::string::npos) section_names_bench = true;
      const bool table_row = text.rfind("|", 0) == 0;
      if (table_row && table_line == 0) {
        table_line = line;
        std::string header = text;
        for (char& c : header) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        table_has_ratio = header.find("ratio") != std::string::npos;
      } else if (!table_row && table_line != 0) {
        end_table();
      }
    }
    end_table();
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

TEST(Docs, TheChecksReadEveryChapterAndDesignNote) {
  const std::vector<std::string> files = markdown_files();
  for (const char* chapter :
       {"README.md", "docs/README.md", "docs/udfs.md", "docs/design/write_protocol.md"})
    EXPECT_NE(std::find(files.begin(), files.end(), chapter), files.end())
        << chapter << " is not among the markdown files checked";
}

TEST(Docs, AnExcerptMayBeDedentedButNotChanged) {
  const std::vector<std::string> file = {"int f() {", "  int x = 1;", "", "  return x;", "}"};
  EXPECT_TRUE(is_excerpt({"int x = 1;", "", "return x;"}, file));
  EXPECT_TRUE(is_excerpt(file, file));
  EXPECT_FALSE(is_excerpt({"int x = 2;", "", "return x;"}, file));
  EXPECT_FALSE(is_excerpt({"int x = 1;", "return x;"}, file));
  EXPECT_FALSE(is_excerpt({"int x = 1;", "", "  return x;"}, file));
}

TEST(Docs, TheCheckRejectsABlockThatIsNeitherExcerptNorProgram) {
  CodeBlock invented{
      "cpp", 1, {"struct Speller {", "  explicit Speller(const ember::InitArgs& a);", "};"}};
  EXPECT_TRUE(file_holding(invented.lines, kSource / "examples", is_cpp_source).empty());
  EXPECT_FALSE(compile_program(invented, "self-test-fragment").empty())
      << "a fragment must not pass as a program";
  CodeBlock program{"cpp",
                    1,
                    {"#include <ember/ember.h>",
                     "int main() { return ember::range(3).collect().num_rows() == 3 ? 0 : 1; }"}};
  EXPECT_EQ(compile_program(program, "self-test-program"), "");
}

}  // namespace
