// Evaluation of an expression tree over a batch: one vectorised kernel call per node.
#include "expr/evaluate.h"

#include "ember/error.h"
#include "expr/arithmetic_kernels.h"
#include "expr/cast_kernels.h"
#include "expr/comparison_kernels.h"
#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/function_eval.h"
#include "expr/list_kernels.h"
#include "expr/logical_kernels.h"
#include "expr/operand_widening.h"
#include "expr/type_rules.h"

namespace ember {

namespace {

// A literal stays a scalar so kernels broadcast it without materialising a column.
Operand operand_of(const ExprNode& e, const Batch& input) {
  if (e.kind == ExprKind::Literal) return Operand::of(e.literal, type_of(e.literal));
  return Operand::of(evaluate(e, input));
}

// A Null-typed side takes the other side's type, as a null scalar.
void coerce_null(Operand& side, const Operand& other) {
  if (side.type.id() != TypeId::Null || other.type.id() == TypeId::Null) return;
  side = Operand::of(Value{}, other.type);
}

Column evaluate_binary(const ExprNode& e, const Batch& input) {
  Operand a = operand_of(*e.children[0], input);
  Operand b = operand_of(*e.children[1], input);
  const auto type = binary_result_type(e.binary, a.type, b.type);
  if (!type) throw_binary_type_error(e, a.type, b.type);
  const int64_t n = input.num_rows();
  if (type->id() == TypeId::Null || n == 0) return Column::nulls(*type, n);
  coerce_null(a, b);
  coerce_null(b, a);
  if (op_class(e.binary) != OpClass::Logical) {
    a = widened(std::move(a));
    b = widened(std::move(b));
  }
  // Kernels take at most one scalar; two literals are folded by materialising one.
  if (a.is_scalar && b.is_scalar) a = Operand::of(Column::repeat(a.scalar, a.type, n));
  switch (op_class(e.binary)) {
    case OpClass::Arithmetic:
      if (type->id() == TypeId::Timestamp) {
        // Computed on the microseconds (widened above), then typed as the instant it is.
        const Column micros = arithmetic(e.binary, a, b, n);
        return Column::from_buffers(*type, n, micros.null_count(), micros.validity_buffer(),
                                    micros.values_buffer(), nullptr, micros.offset());
      }
      if (type->id() == TypeId::Date32) {
        // Computed on the days (widened above); a day past int32's range is null.
        const Column days = cast_column(arithmetic(e.binary, a, b, n), int32());
        return Column::from_buffers(*type, n, days.null_count(), days.validity_buffer(),
                                    days.values_buffer(), nullptr, days.offset());
      }
      return arithmetic(e.binary, a, b, n);
    case OpClass::Comparison:
      return compare(e.binary, a, b, n);
    case OpClass::Logical:
      return logical(e.binary, a, b, n);
  }
  throw Error("unknown operator in " + to_string(e));
}

Column evaluate_unary(const ExprNode& e, const Batch& input) {
  Column c = evaluate(*e.children[0], input);
  const auto type = unary_result_type(e.unary, c.type());
  if (!type) throw_unary_type_error(e, c.type());
  if (type->id() == TypeId::Null || c.size() == 0) return Column::nulls(*type, c.size());
  return e.unary == UnaryOp::Not ? logical_not(c) : negate(widened(c));
}

Column evaluate_udf(const ExprNode& e, const Batch& input) {
  if (!e.udf) throw Error("udf call without a udf in " + to_string(e));
  if (e.udf->is_stateful()) {
    // The planner moves stateful calls into actor pools; reaching here is a planning bug.
    throw Error("stateful udf '" + e.udf->udf_name() +
                "' cannot be evaluated inline; it must run in an actor pool");
  }
  std::vector<Field> fields;
  std::vector<Column> args;
  for (const ExprPtr& c : e.children) {
    args.push_back(evaluate(*c, input));
    fields.push_back(Field{output_name(*c), args.back().type()});
  }
  if (args.empty()) return e.udf->call_inline(Batch::empty_with_rows(input.num_rows()));
  return e.udf->call_inline(Batch(Schema(std::move(fields)), std::move(args)));
}

}  // namespace

Column evaluate(const ExprNode& e, const Batch& input) {
  switch (e.kind) {
    case ExprKind::Column:
      return input.column(e.name);  // shares the input's buffers
    case ExprKind::Literal:
      if (std::holds_alternative<std::monostate>(e.literal)) {
        return Column::nulls(DataType(), input.num_rows());
      }
      return Column::repeat(e.literal, type_of(e.literal), input.num_rows());
    case ExprKind::Binary:
      return evaluate_binary(e, input);
    case ExprKind::Unary:
      return evaluate_unary(e, input);
    case ExprKind::Cast: {
      Column c = evaluate(*e.children[0], input);
      if (!can_cast(c.type(), e.cast_to)) throw_cast_type_error(e, c.type());
      return cast_column(c, e.cast_to);
    }
    case ExprKind::IsNull:
      return is_null_mask(evaluate(*e.children[0], input));
    case ExprKind::ListSize:
    case ExprKind::ListGet: {
      Column c = evaluate(*e.children[0], input);
      if (c.type().id() == TypeId::Null)
        return Column::nulls(e.kind == ExprKind::ListSize ? int64() : DataType(), c.size());
      if (!c.type().is_list()) {
        throw TypeError("cannot apply a list function to " + c.type().to_string() + " in " +
                        to_string(e));
      }
      return e.kind == ExprKind::ListSize ? list_sizes(c) : list_items_at(c, e.index);
    }
    case ExprKind::Alias:
      return evaluate(*e.children[0], input);
    case ExprKind::UdfCall:
      return evaluate_udf(e, input);
    case ExprKind::Function:
      return evaluate_function(e, input);
    case ExprKind::Aggregate:
      // Plan-time type checking rejects aggregates outside agg(); agg() evaluates their inputs.
      throw Error("internal: aggregate " + to_string(e) + " evaluated as a row expression");
  }
  throw Error("unknown expression kind in " + to_string(e));
}

}  // namespace ember
