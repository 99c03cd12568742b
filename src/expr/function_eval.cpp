// Evaluation of the expression library's calls: arguments are evaluated, checked with the same
// typing rules as plan time, cast to the type the kernel reads, then handed to its kernel.
#include "expr/function_eval.h"

#include "ember/error.h"
#include "expr/cast_kernels.h"
#include "expr/conditional_kernels.h"
#include "expr/date_kernels.h"
#include "expr/embedding_kernels.h"
#include "expr/evaluate.h"
#include "expr/expr_text.h"
#include "expr/function_types.h"
#include "expr/hash_kernels.h"
#include "expr/list_function_kernels.h"
#include "expr/math_kernels.h"
#include "expr/regex_kernels.h"
#include "expr/string_kernels.h"

namespace ember {

namespace {

bool in_range(FunctionId f, FunctionId first, FunctionId last) { return f >= first && f <= last; }

Column conditional(const ExprNode& e, std::vector<Column>& args, const DataType& type, int64_t n) {
  for (size_t i = e.function == FunctionId::When ? 1 : 0; i < args.size(); ++i) {
    args[i] = cast_column(args[i], type);
  }
  if (e.function == FunctionId::When) return choose(args[0], args[1], args[2]);
  return first_non_null(args, n);
}

// Embeddings keep a literal query vector as a scalar: it is read once, not repeated per row.
Column embedding(const ExprNode& e, const Batch& input) {
  Operand side[2];
  for (int k = 0; k < 2; ++k) {
    const ExprNode& c = *e.children[size_t(k)];
    side[k] = c.kind == ExprKind::Literal ? Operand::of(c.literal, type_of(c.literal))
                                          : Operand::of(evaluate(c, input));
  }
  const int64_t n = input.num_rows();
  function_result_type(e, {side[0].type, side[1].type}, e);
  if (side[0].all_null() || side[1].all_null()) return Column::nulls(float64(), n);
  return vector_function(e.function, side[0], side[1], n);
}

Column with_args(const ExprNode& e, std::vector<Column>& args, const DataType& type, int64_t n) {
  const FunctionId f = e.function;
  if (f == FunctionId::When || f == FunctionId::Coalesce) return conditional(e, args, type, n);
  for (const Column& a : args) {
    if (a.type().id() == TypeId::Null) return Column::nulls(type, n);
  }
  if (f == FunctionId::Concat) return concat_texts(args, n);
  if (in_range(f, FunctionId::StrMatch, FunctionId::StrReplaceRegex)) {
    return regex_function(e, args[0]);
  }
  if (in_range(f, FunctionId::StrLength, FunctionId::StrPad)) return string_function(e, args[0]);
  if (in_range(f, FunctionId::Abs, FunctionId::Sign)) {
    for (Column& a : args) a = cast_column(a, type);
    return math_function(e, args, type);
  }
  if (f == FunctionId::IsIn) return membership(args[0], e.params);
  if (f == FunctionId::Hash) return hash_values(args[0]);
  if (in_range(f, FunctionId::ListContains, FunctionId::ListDistinct)) {
    return list_function(e, args[0], type);
  }
  if (in_range(f, FunctionId::DtYear, FunctionId::DtTruncate)) return date_function(e, args[0]);
  throw Error("internal: no kernel for " + to_string(e));
}

}  // namespace

Column evaluate_function(const ExprNode& e, const Batch& input) {
  if (in_range(e.function, FunctionId::CosineSimilarity, FunctionId::L2Distance)) {
    return embedding(e, input);
  }
  std::vector<Column> args;
  std::vector<DataType> types;
  for (const ExprPtr& c : e.children) {
    args.push_back(evaluate(*c, input));
    types.push_back(args.back().type());
  }
  const DataType type = function_result_type(e, types, e);
  const int64_t n = input.num_rows();
  if (type.id() == TypeId::Null) return Column::nulls(type, n);
  return with_args(e, args, type, n);
}

}  // namespace ember
