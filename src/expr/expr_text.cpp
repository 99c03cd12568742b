// Rendering expression trees as the text users wrote: "((id * 3) + 1)".
#include "expr/expr_text.h"

#include "expr/function_catalog.h"

namespace ember {

namespace {

// A string literal as it would be written: double-quoted with \" and \\ escaped.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A constant argument as the call was written: text quoted, numbers as they are.
std::string param_text(const Value& v) {
  if (auto* s = std::get_if<std::string>(&v)) return quoted(*s);
  return to_string(v);
}

// "name.str_lower()", "x.str_replace(\"a\", \"b\")", "when(c, a, b)".
std::string function_text(const ExprNode& e) {
  const bool method = is_method(e.function) && !e.children.empty();
  std::string args;
  for (size_t i = method ? 1 : 0; i < e.children.size(); ++i) {
    args += (args.empty() ? "" : ", ") + to_string(*e.children[i]);
  }
  if (e.function == FunctionId::UrlDownload && e.params.size() == 2) {
    // Its options, as the struct names them.
    args = "max_connections=" + param_text(e.params[0]) +
           (std::get<int64_t>(e.params[1]) != 0 ? ", on_error=null" : "");
  } else {
    for (const Value& p : e.params) args += (args.empty() ? "" : ", ") + param_text(p);
  }
  const std::string call = std::string(function_name(e.function)) + "(" + args + ")";
  return method ? to_string(*e.children[0]) + "." + call : call;
}

}  // namespace

const char* to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "+";
    case BinaryOp::Sub:
      return "-";
    case BinaryOp::Mul:
      return "*";
    case BinaryOp::Div:
      return "/";
    case BinaryOp::Mod:
      return "%";
    case BinaryOp::Eq:
      return "==";
    case BinaryOp::Ne:
      return "!=";
    case BinaryOp::Lt:
      return "<";
    case BinaryOp::Le:
      return "<=";
    case BinaryOp::Gt:
      return ">";
    case BinaryOp::Ge:
      return ">=";
    case BinaryOp::And:
      return "&&";
    case BinaryOp::Or:
      return "||";
  }
  return "?";
}

const char* to_string(AggFunc f) {
  switch (f) {
    case AggFunc::Sum:
      return "sum";
    case AggFunc::Count:
      return "count";
    case AggFunc::Min:
      return "min";
    case AggFunc::Max:
      return "max";
    case AggFunc::Mean:
      return "mean";
    case AggFunc::CountDistinct:
      return "count_distinct";
    case AggFunc::First:
      return "first";
    case AggFunc::List:
      return "list";
  }
  return "?";
}

std::string to_string(const ExprNode& e) {
  switch (e.kind) {
    case ExprKind::Column:
      return e.name;
    case ExprKind::Literal:
      // Dates and timestamps as the calls that make them: bare, 2024-01-01 reads as a
      // subtraction.
      if (std::holds_alternative<Date>(e.literal))
        return "lit_date(" + quoted(to_string(e.literal)) + ")";
      if (std::holds_alternative<Timestamp>(e.literal))
        return "lit_timestamp(" + quoted(to_string(e.literal)) + ")";
      return param_text(e.literal);
// GCC 12 reports a false -Wrestrict inside std::string's inlined insert in the two cases below
// (GCC bug 105651): the source and destination are distinct strings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
    case ExprKind::Binary:
      return "(" + to_string(*e.children[0]) + " " + to_string(e.binary) + " " +
             to_string(*e.children[1]) + ")";
    case ExprKind::Unary:
      return (e.unary == UnaryOp::Not ? "!" : "-") + to_string(*e.children[0]);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    case ExprKind::Cast:
      return to_string(*e.children[0]) + ".cast(" + e.cast_to.to_string() + ")";
    case ExprKind::IsNull:
      return to_string(*e.children[0]) + ".is_null()";
    case ExprKind::ListSize:
      return to_string(*e.children[0]) + ".list_size()";
    case ExprKind::ListGet:
      return to_string(*e.children[0]) + ".list_get(" + std::to_string(e.index) + ")";
    case ExprKind::Alias:
      return to_string(*e.children[0]) + ".alias(" + quoted(e.name) + ")";
    case ExprKind::UdfCall: {
      std::string out = (e.udf ? e.udf->udf_name() : std::string("udf")) + "(";
      for (size_t i = 0; i < e.children.size(); ++i) {
        if (i > 0) out += ", ";
        out += to_string(*e.children[i]);
      }
      return out + ")";
    }
    case ExprKind::Aggregate:
      return to_string(*e.children[0]) + "." + to_string(e.agg) + "()";
    case ExprKind::Function:
      return function_text(e);
  }
  return "?";
}

}  // namespace ember
