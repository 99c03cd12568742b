// The names of the expression library's functions, in FunctionId order.
#include "expr/function_catalog.h"

#include <array>
#include <cstddef>

namespace ember {

namespace {

constexpr std::array<const char*, std::size_t(kLastFunctionId) + 1> kNames = {
    "str_length",
    "str_lower",
    "str_upper",
    "str_contains",
    "str_starts_with",
    "str_ends_with",
    "str_replace",
    "str_split",
    "str_slice",
    "str_strip",
    "str_pad",
    "concat",
    "str_match",
    "str_extract",
    "str_replace_regex",
    "when",
    "coalesce",
    "is_in",
    "abs",
    "round",
    "floor",
    "ceil",
    "sqrt",
    "exp",
    "log",
    "log10",
    "pow",
    "clip",
    "sign",
    "hash",
    "list_contains",
    "list_sum",
    "list_mean",
    "list_min",
    "list_max",
    "list_slice",
    "list_join",
    "list_sort",
    "list_distinct",
    "cosine_similarity",
    "dot",
    "l2_distance",
    "dt_year",
    "dt_month",
    "dt_day",
    "dt_hour",
    "dt_minute",
    "dt_second",
    "dt_day_of_week",
    "dt_truncate",
    "field",
    "map_get",
    "url_download",
};

}  // namespace

const char* function_name(FunctionId f) {
  const auto i = std::size_t(f);
  return i < kNames.size() ? kNames[i] : "?";
}

bool is_method(FunctionId f) {
  switch (f) {
    case FunctionId::Concat:
    case FunctionId::When:
    case FunctionId::Coalesce:
    case FunctionId::CosineSimilarity:
    case FunctionId::Dot:
    case FunctionId::L2Distance:
      return false;
    default:
      return true;
  }
}

}  // namespace ember
