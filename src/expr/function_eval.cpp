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
#include "expr/nested_kernels.h"
#include "expr/regex_kernels.h"
#include "expr/string_kernels.h"
#include "expr/type_check.h"

namespace ember {

namespace {

bool in_range(FunctionId f, FunctionId first, FunctionId last) { return f >= first && f <= last; }

// A branch of when(): a literal stays one row (broadcast), cast once to the result's type.
Column branch(const ExprNode& e, const Batch& input, const DataType& type) {
  if (e.kind != ExprKind::Literal) return cast_column(evaluate(e, input), type);
  if (std::holds_alternative<std::monostate>(e.literal)) return Column::nulls(type, 1);
  return cast_column(Column::repeat(e.literal, type_of(e.literal), 1), type);
}

// when(a, x, when(b, y, z)) runs as one CASE with two conditions: each row is decided once and
// its value copied once, however long the chain.
Column when_chain(const ExprNode& e, const Batch& input, const DataType& type) {
  std::vector<Column> conds, values;
  const ExprNode* w = &e;
  for (; w->kind == ExprKind::Function && w->function == FunctionId::When;
       w = w->children[2].get()) {
    conds.push_back(evaluate(*w->children[0], input));
    values.push_back(branch(*w->children[1], input, type));
  }
  values.push_back(branch(*w, input, type));
  return choose(conds, values, input.num_rows());
}

Column conditional(std::vector<Column>& args, const DataType& type, int64_t n) {
  for (Column& a : args) a = cast_column(a, type);
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
  if (f == FunctionId::Coalesce) return conditional(args, type, n);
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
  if (f == FunctionId::StructField) return args[0].field(std::get<std::string>(e.params[0]));
  if (f == FunctionId::MapGet) return map_get(args[0], e.params[0], type);
  if (f == FunctionId::UrlDownload)
    throw Error("internal: " + to_string(e) +
                " reached the expression evaluator; the planner "
                "runs every download in its own operator");
  throw Error("internal: no kernel for " + to_string(e));
}

}  // namespace

Column evaluate_function(const ExprNode& e, const Batch& input) {
  if (in_range(e.function, FunctionId::CosineSimilarity, FunctionId::L2Distance)) {
    return embedding(e, input);
  }
  if (e.function == FunctionId::When) {
    // Typed as a whole first (the plan did the same), then run as one CASE.
    const DataType type = infer_type(e, input.schema());
    if (type.id() == TypeId::Null) return Column::nulls(type, input.num_rows());
    return when_chain(e, input, type);
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
