// Typing rules of the expression library: which argument types each function takes and what
// it returns.
#include "expr/function_types.h"

#include <string>

#include "ember/error.h"
#include "expr/date_kernels.h"
#include "expr/expr_text.h"
#include "expr/function_catalog.h"
#include "expr/regex_kernels.h"
#include "expr/string_kernels.h"

namespace ember {

namespace {

bool is_null_type(const DataType& t) { return t.id() == TypeId::Null; }
bool is_text(const DataType& t) { return t.id() == TypeId::Utf8 || is_null_type(t); }
bool is_number(const DataType& t) { return t.is_numeric() || is_null_type(t); }
bool is_float_vector(const DataType& t) {
  if (is_null_type(t)) return true;
  if (!t.is_list()) return false;
  const TypeId e = t.element().id();
  return e == TypeId::Float32 || e == TypeId::Float64;
}
// Types whose values order and compare: numbers, bool, text, timestamps, dates.
bool is_ordered(const DataType& t) {
  return t.is_numeric() || t.id() == TypeId::Boolean || t.id() == TypeId::Utf8 ||
         t.id() == TypeId::Timestamp || t.id() == TypeId::Date32 || is_null_type(t);
}
bool is_hashable(const DataType& t) { return is_ordered(t) || t.id() == TypeId::Binary; }

// int64 for integer input, float64 otherwise (the arithmetic operators' widening).
DataType widened_number(const DataType& t) { return t.is_integer() ? int64() : float64(); }

[[noreturn]] void type_error(const ExprNode& e, const std::vector<DataType>& args,
                             const ExprNode& root, const std::string& takes) {
  std::string types;
  for (const DataType& t : args) types += (types.empty() ? "" : ", ") + t.to_string();
  throw TypeError(std::string("cannot apply ") + function_name(e.function) + "() to (" + types +
                  ") in " + to_string(root) + "; it takes " + takes);
}

// Whether a constant of value `v` can be compared with values of type `t` (is_in,
// list_contains).
bool comparable_value(const Value& v, const DataType& t) {
  const DataType vt = type_of(v);
  if (is_null_type(vt) || is_null_type(t)) return true;
  if (vt.is_numeric() && t.is_numeric()) return true;
  return vt.id() == t.id() && is_ordered(t);
}

DataType text_function_type(const ExprNode& e, const std::vector<DataType>& args,
                            const ExprNode& root) {
  for (const DataType& t : args) {
    if (!is_text(t)) type_error(e, args, root, "utf8");
  }
  check_text_params(e, root);
  switch (e.function) {
    case FunctionId::StrLength:
      return int64();
    case FunctionId::StrContains:
    case FunctionId::StrStartsWith:
    case FunctionId::StrEndsWith:
      return boolean();
    case FunctionId::StrMatch:
      check_regex_params(e, root);
      return boolean();
    case FunctionId::StrExtract:
    case FunctionId::StrReplaceRegex:
      check_regex_params(e, root);
      return utf8();
    case FunctionId::StrSplit:
      return list(utf8());
    default:
      return utf8();
  }
}

DataType conditional_type(const ExprNode& e, const std::vector<DataType>& args,
                          const ExprNode& root) {
  if (args.empty()) type_error(e, args, root, "at least one argument");
  size_t first = 0;
  if (e.function == FunctionId::When) {
    if (args.size() != 3 || (args[0].id() != TypeId::Boolean && !is_null_type(args[0]))) {
      type_error(e, args, root, "a bool condition and two branches of one type");
    }
    first = 1;
  }
  DataType out = args[first];
  for (size_t i = first + 1; i < args.size(); ++i) {
    auto t = common_type(out, args[i]);
    if (!t) type_error(e, args, root, "values of one type (or numbers)");
    out = *t;
  }
  return out;
}

DataType math_type(const ExprNode& e, const std::vector<DataType>& args, const ExprNode& root) {
  for (const DataType& t : args) {
    if (!is_number(t)) type_error(e, args, root, "numbers");
  }
  switch (e.function) {
    case FunctionId::Abs:
    case FunctionId::Round:
    case FunctionId::Floor:
    case FunctionId::Ceil:
    case FunctionId::Sign:
      return widened_number(args[0]);
    case FunctionId::Clip: {
      bool ints = true;
      for (const DataType& t : args) ints = ints && (t.is_integer() || is_null_type(t));
      return ints ? int64() : float64();
    }
    default:
      return float64();
  }
}

DataType list_function_type(const ExprNode& e, const std::vector<DataType>& args,
                            const ExprNode& root) {
  const DataType& t = args[0];
  if (!t.is_list() && !is_null_type(t)) type_error(e, args, root, "a list");
  const DataType item = t.element();
  switch (e.function) {
    case FunctionId::ListContains:
      if (e.params.size() != 1 || !comparable_value(e.params[0], item)) {
        type_error(e, args, root, "a list and a value of its item type");
      }
      return boolean();
    case FunctionId::ListSum:
    case FunctionId::ListMean:
      if (!is_number(item)) type_error(e, args, root, "a list of numbers");
      return e.function == FunctionId::ListMean ? float64() : widened_number(item);
    case FunctionId::ListMin:
    case FunctionId::ListMax:
      if (!is_ordered(item))
        type_error(e, args, root, "a list of numbers, bool, utf8 or timestamps");
      return item;
    case FunctionId::ListSort:
    case FunctionId::ListDistinct:
      if (!is_ordered(item))
        type_error(e, args, root, "a list of numbers, bool, utf8 or timestamps");
      return list(item);
    case FunctionId::ListSlice:
      if (std::get<int64_t>(e.params[1]) < 0) {
        throw InvalidArgument("list_slice: the length must not be negative in " + to_string(root));
      }
      return list(item);
    case FunctionId::ListJoin:
      if (!is_text(item)) type_error(e, args, root, "a list of utf8");
      return utf8();
    default:
      break;
  }
  type_error(e, args, root, "a list");
}

DataType other_type(const ExprNode& e, const std::vector<DataType>& args, const ExprNode& root) {
  switch (e.function) {
    case FunctionId::IsIn:
      for (const Value& v : e.params) {
        if (!is_ordered(args[0]) || !comparable_value(v, args[0])) {
          type_error(e, args, root,
                     "a value and values of its type (numbers, bool, utf8, timestamps)");
        }
      }
      return boolean();
    case FunctionId::Hash:
      if (!is_hashable(args[0]))
        type_error(e, args, root, "numbers, bool, utf8, binary or timestamps");
      return int64();
    case FunctionId::CosineSimilarity:
    case FunctionId::Dot:
    case FunctionId::L2Distance:
      if (args.size() != 2 || !is_float_vector(args[0]) || !is_float_vector(args[1])) {
        type_error(e, args, root, "two lists of float32 or float64");
      }
      return float64();
    case FunctionId::StructField: {
      if (is_null_type(args[0])) return DataType();
      const int i = args[0].field_index(std::get<std::string>(e.params[0]));
      if (args[0].id() != TypeId::Struct || i < 0) {
        std::string fields;
        for (const Field& f : args[0].fields()) fields += (fields.empty() ? "" : ", ") + f.name;
        type_error(e, args, root,
                   fields.empty() ? std::string("a struct")
                                  : "a struct with that field (its fields: " + fields + ")");
      }
      return args[0].fields()[size_t(i)].type;
    }
    case FunctionId::MapGet: {
      if (is_null_type(args[0])) return DataType();
      if (args[0].id() != TypeId::Map ||
          !comparable_value(e.params[0], args[0].element().fields()[0].type))
        type_error(e, args, root, "a map and a key of its key type");
      return args[0].element().fields()[1].type;
    }
    case FunctionId::UrlDownload:
      if (!is_text(args[0])) type_error(e, args, root, "utf8 URLs or paths");
      return binary();
    default:
      break;
  }
  // Dates and times: a date is the instant of its midnight, and truncates to a date.
  const bool date = args[0].id() == TypeId::Date32;
  if (args[0].id() != TypeId::Timestamp && !date && !is_null_type(args[0])) {
    type_error(e, args, root, "a timestamp or a date");
  }
  if (e.function != FunctionId::DtTruncate) return int64();
  check_truncate_unit(e, root);
  return date ? date32() : timestamp_us();
}

}  // namespace

std::optional<DataType> common_type(const DataType& a, const DataType& b) {
  if (is_null_type(a)) return b;
  if (is_null_type(b) || a == b) return a;
  if (a.is_numeric() && b.is_numeric()) {
    return a.is_integer() && b.is_integer() ? int64() : float64();
  }
  return std::nullopt;
}

DataType function_result_type(const ExprNode& e, const std::vector<DataType>& args,
                              const ExprNode& root) {
  const FunctionId f = e.function;
  if (f <= FunctionId::StrReplaceRegex) {
    if (args.empty()) type_error(e, args, root, "utf8");
    return text_function_type(e, args, root);
  }
  if (f == FunctionId::When || f == FunctionId::Coalesce) return conditional_type(e, args, root);
  if (f >= FunctionId::Abs && f <= FunctionId::Sign) return math_type(e, args, root);
  if (args.empty()) type_error(e, args, root, "an argument");
  if (f >= FunctionId::ListContains && f <= FunctionId::ListDistinct) {
    return list_function_type(e, args, root);
  }
  return other_type(e, args, root);
}

}  // namespace ember
