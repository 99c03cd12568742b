// Output schemas and explain() text of one-column-per-expression nodes.
#include "plan/nodes/expression_columns.h"

#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/expr_tree.h"
#include "expr/type_check.h"

namespace ember {

Schema expression_columns(const std::vector<ExprPtr>& exprs, const Schema& input, const char* op,
                          DataType (*infer)(const ExprNode&, const Schema&)) {
  std::vector<Field> fields;
  std::set<std::string> names;
  for (const auto& e : exprs) {
    DataType t = infer(*e, input);
    std::string name = output_name(*e);
    if (!names.insert(name).second)
      throw InvalidArgument("duplicate output column '" + name + "' in " + op +
                            ": give one of them another name with .alias(...)");
    fields.push_back({name, t});
  }
  return Schema(std::move(fields));
}

std::string describe_expressions(const std::vector<ExprPtr>& exprs) {
  std::string out;
  for (const auto& e : exprs) {
    if (!out.empty()) out += ", ";
    std::string name = output_name(*e);
    std::string text = to_string(*e);
    out += (text == name || e->kind == ExprKind::Alias) ? text : text + " AS " + name;
  }
  return out;
}

std::set<std::string> columns_read(const std::vector<ExprPtr>& exprs) {
  std::set<std::string> out;
  for (const auto& e : exprs) referenced_columns(*e, out);
  return out;
}

}  // namespace ember
