// The functions of the expression library, as a tag on an expression node. New tags go at the
// end: the tag travels as a byte to other ranks.
#pragma once

#include <cstdint>

namespace ember {

enum class FunctionId : uint8_t {
  // text (expr/string_kernels.h, expr/regex_kernels.h)
  StrLength,
  StrLower,
  StrUpper,
  StrContains,
  StrStartsWith,
  StrEndsWith,
  StrReplace,
  StrSplit,
  StrSlice,
  StrStrip,
  StrPad,
  Concat,
  StrMatch,
  StrExtract,
  StrReplaceRegex,
  // conditionals and nulls (expr/conditional_kernels.h)
  When,
  Coalesce,
  IsIn,
  // math (expr/math_kernels.h)
  Abs,
  Round,
  Floor,
  Ceil,
  Sqrt,
  Exp,
  Log,
  Log10,
  Pow,
  Clip,
  Sign,
  // hashing (expr/hash_kernels.h)
  Hash,
  // lists (expr/list_function_kernels.h)
  ListContains,
  ListSum,
  ListMean,
  ListMin,
  ListMax,
  ListSlice,
  ListJoin,
  ListSort,
  ListDistinct,
  // embeddings (expr/embedding_kernels.h)
  CosineSimilarity,
  Dot,
  L2Distance,
  // dates and times (expr/date_kernels.h)
  DtYear,
  DtMonth,
  DtDay,
  DtHour,
  DtMinute,
  DtSecond,
  DtDayOfWeek,
  DtTruncate,
  // structs and maps (expr/nested_kernels.h)
  StructField,
  MapGet,
  // files behind URLs: evaluated by exec's download operator, never by a kernel
  UrlDownload,
};

/// The last tag, for range checks on a decoded byte.
inline constexpr FunctionId kLastFunctionId = FunctionId::UrlDownload;

}  // namespace ember
