// Regex kernels: the pattern is compiled once per column, then every row runs through it.
#include "expr/regex_kernels.h"

#include <re2/re2.h>

#include <string>

#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/function_catalog.h"
#include "expr/kernel_input.h"
#include "expr/utf8_output.h"

namespace ember {

namespace {

RE2::Options options() {
  RE2::Options o;
  o.set_log_errors(false);  // a bad pattern is reported to the user, not on stderr
  return o;
}

re2::StringPiece piece(std::string_view s) { return re2::StringPiece(s.data(), s.size()); }

Column matches(const RE2& re, const Column& text) {
  const kernel::Utf8Read read{text.offsets(), text.chars()};
  auto bits = kernel::bits_where(text.size(),
                                 [&](int64_t i) { return RE2::PartialMatch(piece(read(i)), re); });
  return Column::from_buffers(boolean(), text.size(), -1, same_validity(text), bits);
}

Column extracted(const RE2& re, int group, const Column& text) {
  const kernel::Utf8Read read{text.offsets(), text.chars()};
  Utf8Output out(text.size(), 0);
  std::vector<re2::StringPiece> groups(size_t(group) + 1);
  for (int64_t i = 0; i < text.size(); ++i) {
    const std::string_view s = read(i);
    if (!text.is_null(i) &&
        re.Match(piece(s), 0, s.size(), RE2::UNANCHORED, groups.data(), group + 1) &&
        groups[size_t(group)].data() != nullptr) {
      out.append(std::string_view(groups[size_t(group)].data(), groups[size_t(group)].size()));
      out.end_row();
    } else {
      out.null_row();
    }
  }
  return out.finish(utf8(), same_validity(text));
}

Column replaced(const RE2& re, const std::string& to, const Column& text) {
  const kernel::Utf8Read read{text.offsets(), text.chars()};
  Utf8Output out(text.size(), size_t(text.size() ? text.offsets()[text.size()] : 0));
  std::string row;
  for (int64_t i = 0; i < text.size(); ++i) {
    if (!text.is_null(i)) {
      row.assign(read(i));
      RE2::GlobalReplace(&row, re, to);
      out.append(row);
    }
    out.end_row();
  }
  return out.finish(utf8(), same_validity(text));
}

const std::string& pattern_of(const ExprNode& e) { return std::get<std::string>(e.params[0]); }

}  // namespace

void check_regex_params(const ExprNode& e, const ExprNode& root) {
  const RE2 re(pattern_of(e), options());
  const std::string where = std::string(function_name(e.function)) + ": ";
  if (!re.ok()) {
    throw InvalidArgument(where + "the regular expression '" + pattern_of(e) +
                          "' does not compile (" + re.error() + ") in " + to_string(root));
  }
  if (e.function == FunctionId::StrExtract) {
    const int64_t g = std::get<int64_t>(e.params[1]);
    if (g < 0 || g > re.NumberOfCapturingGroups()) {
      throw InvalidArgument(where + "group " + std::to_string(g) + " is not a group of '" +
                            pattern_of(e) + "', which has " +
                            std::to_string(re.NumberOfCapturingGroups()) + " in " +
                            to_string(root));
    }
  }
  if (e.function == FunctionId::StrReplaceRegex) {
    std::string why;
    if (!re.CheckRewriteString(std::get<std::string>(e.params[1]), &why)) {
      throw InvalidArgument(where + "the replacement '" + std::get<std::string>(e.params[1]) +
                            "' does not fit '" + pattern_of(e) + "' (" + why + ") in " +
                            to_string(root));
    }
  }
}

Column regex_function(const ExprNode& e, const Column& text) {
  const RE2 re(pattern_of(e), options());
  if (!re.ok()) check_regex_params(e, e);  // throws, naming the pattern
  switch (e.function) {
    case FunctionId::StrMatch:
      return matches(re, text);
    case FunctionId::StrExtract:
      return extracted(re, int(std::get<int64_t>(e.params[1])), text);
    case FunctionId::StrReplaceRegex:
      return replaced(re, std::get<std::string>(e.params[1]), text);
    default:
      throw Error("internal: not a regex kernel in " + to_string(e));
  }
}

}  // namespace ember
