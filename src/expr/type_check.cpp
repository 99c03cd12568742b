// Plan-time typing of expressions.
#include "expr/type_check.h"

#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/function_types.h"
#include "expr/type_rules.h"

namespace ember {

namespace {

std::string column_list(const Schema& s) {
  if (s.num_fields() == 0) return "(none)";
  std::string out;
  for (const Field& f : s.fields()) out += (out.empty() ? "" : ", ") + f.name;
  return out;
}

// `root` is the expression the user wrote, quoted in unknown-column errors for context.
DataType infer(const ExprNode& e, const Schema& input, const ExprNode& root) {
  switch (e.kind) {
    case ExprKind::Column: {
      const int i = input.index_of(e.name);
      if (i < 0) {
        // Quoting the expression only helps when it is more than the column itself.
        const std::string context = &e == &root ? "" : " in " + to_string(root);
        throw InvalidArgument("unknown column '" + e.name + "'" + context +
                              "; columns are: " + column_list(input));
      }
      return input.field(i).type;
    }
    case ExprKind::Literal:
      return type_of(e.literal);
    case ExprKind::Binary: {
      const DataType l = infer(*e.children[0], input, root);
      const DataType r = infer(*e.children[1], input, root);
      if (auto t = binary_result_type(e.binary, l, r)) return *t;
      throw_binary_type_error(e, l, r);
    }
    case ExprKind::Unary: {
      const DataType t = infer(*e.children[0], input, root);
      if (auto r = unary_result_type(e.unary, t)) return *r;
      throw_unary_type_error(e, t);
    }
    case ExprKind::Cast: {
      const DataType from = infer(*e.children[0], input, root);
      if (!can_cast(from, e.cast_to)) throw_cast_type_error(e, from);
      return e.cast_to;
    }
    case ExprKind::IsNull:
      infer(*e.children[0], input, root);
      return boolean();
    case ExprKind::ListSize:
    case ExprKind::ListGet: {
      const DataType t = infer(*e.children[0], input, root);
      if (t.id() == TypeId::Null) return e.kind == ExprKind::ListSize ? int64() : DataType();
      if (!t.is_list()) {
        throw TypeError(std::string("cannot apply ") +
                        (e.kind == ExprKind::ListSize ? "list_size()" : "list_get()") + " to " +
                        t.to_string() + " in " + to_string(root) + "; it takes a list");
      }
      return e.kind == ExprKind::ListSize ? int64() : t.element();
    }
    case ExprKind::Alias:
      return infer(*e.children[0], input, root);
    case ExprKind::UdfCall: {
      for (const ExprPtr& c : e.children) infer(*c, input, root);
      if (!e.udf) throw InvalidArgument("udf call without a udf in " + to_string(root));
      if (!e.udf->declared_type()) {
        throw InvalidArgument("udf '" + e.udf->udf_name() +
                              "' has no return type: call .returns(...)");
      }
      return *e.udf->declared_type();
    }
    case ExprKind::Function: {
      std::vector<DataType> args;
      for (const ExprPtr& c : e.children) args.push_back(infer(*c, input, root));
      return function_result_type(e, args, root);
    }
    case ExprKind::Aggregate:
      throw InvalidArgument("aggregate " + to_string(e) + " in " + to_string(root) +
                            " is only allowed as a whole expression given to agg(), e.g. "
                            "agg({col(\"x\").sum()})");
  }
  throw Error("unknown expression kind in " + to_string(root));
}

// Sums and means take every number (int32 sums to int64, float32 to float64, as in SQL); min and
// max every ordered type, in that type.
bool is_number(const DataType& t) {
  return t.id() == TypeId::Int64 || t.id() == TypeId::Float64 || t.id() == TypeId::Int32 ||
         t.id() == TypeId::Float32;
}

bool is_ordered(const DataType& t) {
  return is_number(t) || t.id() == TypeId::Boolean || t.id() == TypeId::Utf8 ||
         t.id() == TypeId::Date32 || t.id() == TypeId::Timestamp;
}

std::optional<DataType> aggregate_result_type(AggFunc f, const DataType& in) {
  if (f == AggFunc::Count || f == AggFunc::CountDistinct) return int64();
  if (f == AggFunc::First) return in;
  if (f == AggFunc::List) return list(in);
  if (in.id() == TypeId::Null) return DataType();
  switch (f) {
    case AggFunc::Sum:
      if (in.id() == TypeId::Boolean || in.id() == TypeId::Int64 || in.id() == TypeId::Int32)
        return int64();
      if (is_number(in)) return float64();
      break;
    case AggFunc::Mean:
      if (is_number(in)) return float64();
      break;
    case AggFunc::Min:
    case AggFunc::Max:
      if (is_ordered(in)) return in;
      break;
    case AggFunc::Count:
    case AggFunc::CountDistinct:
    case AggFunc::First:
    case AggFunc::List:
      break;
  }
  return std::nullopt;
}

}  // namespace

DataType infer_type(const ExprNode& e, const Schema& input) { return infer(e, input, e); }

DataType infer_aggregate_type(const ExprNode& e, const Schema& input) {
  const ExprNode& a = aggregate_of(e);
  const DataType in = infer(*a.children[0], input, e);
  if (auto t = aggregate_result_type(a.agg, in)) return *t;
  throw TypeError(std::string("cannot apply ") + to_string(a.agg) + "() to " + in.to_string() +
                  " in " + to_string(e));
}

}  // namespace ember
