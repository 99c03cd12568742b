// The guide cannot misquote an error: every line of a ```error block in README.md or docs/ must
// be the text of an error ember really raises, which this test provokes (a "..." in a quoted
// line stands for any text, e.g. a temporary file's name).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "io/temp_dir.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

struct Quote {
  std::string where;  // file:line
  std::string text;
};

/// Each line of each ```error block under the source tree's README.md and docs/.
std::vector<Quote> quoted_errors() {
  std::vector<fs::path> files{fs::path(EMBER_SOURCE_DIR) / "README.md"};
  for (const auto& e : fs::recursive_directory_iterator(fs::path(EMBER_SOURCE_DIR) / "docs"))
    if (e.path().extension() == ".md") files.push_back(e.path());
  std::vector<Quote> quotes;
  for (const fs::path& file : files) {
    std::ifstream in(file);
    bool inside = false;
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      line.erase(0, line.find_first_not_of(' '));  // a block may sit in a list item
      if (line.rfind("```", 0) == 0) {
        inside = !inside && line == "```error";
      } else if (inside && !line.empty()) {
        quotes.push_back(
            {fs::relative(file, EMBER_SOURCE_DIR).string() + ":" + std::to_string(n), line});
      }
    }
  }
  return quotes;
}

/// "ember::TypeName: what()" of the error `f` throws, or "" if it throws none.
template <class F>
std::string raised(F&& f) {
  try {
    f();
  } catch (const ResourceError& e) {
    return std::string("ember::ResourceError: ") + e.what();
  } catch (const UdfError& e) {
    return std::string("ember::UdfError: ") + e.what();
  } catch (const IoError& e) {
    return std::string("ember::IoError: ") + e.what();
  } catch (const ParseError& e) {
    return std::string("ember::ParseError: ") + e.what();
  } catch (const TypeError& e) {
    return std::string("ember::TypeError: ") + e.what();
  } catch (const InvalidArgument& e) {
    return std::string("ember::InvalidArgument: ") + e.what();
  }
  return "";
}

struct Embed {
  explicit Embed(const InitArgs& args) : dim(args.get<int64_t>("dim")) {}
  Column operator()(const Batch& in) const { return in.column(0); }
  int64_t dim;
};

struct FailsOnOdd {
  explicit FailsOnOdd(const InitArgs&) {}
  Column operator()(const Batch& in) const {
    for (int64_t i = 0; i < in.num_rows(); ++i)
      if (in.column(0).value<int64_t>(i) % 2 == 1)
        throw std::runtime_error("odd id " + std::to_string(in.column(0).value<int64_t>(i)));
    return in.column(0);
  }
};

/// The errors the guide quotes, provoked for real.
std::vector<std::string> real_errors(const testing_io::TempDir& dir) {
  std::vector<std::string> out;
  RunOptions two_gpus;
  two_gpus.resources = Resources{8, 2, int64_t{16} << 30};
  const Udf embed = Udf::cls<Embed>("embed")
                        .returns(int64())
                        .init_args({{"dim", int64_t{384}}})
                        .concurrency(3)
                        .num_gpus(1);
  out.push_back(raised([&] { range(10).with_column("e", embed(col("id"))).collect(two_gpus); }));
  const Udf no_dim = Udf::cls<Embed>("embed").returns(int64());
  out.push_back(raised([&] { range(10).with_column("e", no_dim(col("id"))).collect(); }));
  const DataFrame left = range(4).with_column("k", col("id"));
  const DataFrame right = range(4).with_column("k", col("id").cast(float64()));
  out.push_back(raised([&] { left.join(right, {"k"}).collect(); }));
  const Udf odd = Udf::cls<FailsOnOdd>("odd")
                      .returns(int64())
                      .batch_size(16)
                      .on_error(OnError::Null)
                      .max_failed_rows(3);
  out.push_back(raised([&] { range(100).with_column("y", odd(col("id"))).collect(); }));
  const std::string csv = dir.write("prices.csv", "item,price\napple,1.5\npear,two\n");
  CsvOptions typed;
  typed.schema = Schema({{"item", utf8()}, {"price", float64()}});
  out.push_back(raised([&] { read_csv(csv, typed).collect(); }));
  out.push_back(raised([&] { read_csv(dir.file("missing/*.csv")).collect(); }));
  return out;
}

/// `quoted` as a regex over a whole message: "..." is any text, the rest literal.
std::regex pattern_of(const std::string& quoted) {
  std::string re;
  for (size_t i = 0; i < quoted.size(); ++i) {
    if (quoted.compare(i, 3, "...") == 0) {
      re += ".*";
      i += 2;
    } else if (std::string("\\^$.|?*+()[]{}").find(quoted[i]) != std::string::npos) {
      re += std::string("\\") + quoted[i];
    } else {
      re += quoted[i];
    }
  }
  return std::regex(re);
}

TEST(DocsErrors, EveryQuotedErrorIsTheRealText) {
  testing_io::TempDir dir;
  const std::vector<Quote> quotes = quoted_errors();
  ASSERT_GE(quotes.size(), 4u) << "the guide quotes fewer errors than it did: was a block lost?";
  const std::vector<std::string> real = real_errors(dir);
  std::string all;
  for (const std::string& r : real) all += "\n  " + r;
  for (const Quote& q : quotes) {
    bool found = false;
    for (const std::string& r : real) found = found || std::regex_match(r, pattern_of(q.text));
    EXPECT_TRUE(found) << q.where << " quotes an error ember does not raise:\n  " << q.text
                       << "\nthe errors it raises:" << all;
  }
}

TEST(DocsErrors, AQuotedLineMatchesOnlyItsOwnText) {
  EXPECT_TRUE(std::regex_match("ember::IoError: no file matches '/tmp/x/*.csv'",
                               pattern_of("ember::IoError: no file matches '.../*.csv'")));
  EXPECT_FALSE(std::regex_match("ember::IoError: no file matches '/tmp/x/*.csv'",
                                pattern_of("ember::IoError: no file matches 'x.csv'")));
  EXPECT_FALSE(std::regex_match("ember::TypeError: a (b)", pattern_of("ember::TypeError: a b")));
}

}  // namespace
}  // namespace ember
