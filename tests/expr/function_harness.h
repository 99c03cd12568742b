// Evaluating library functions in tests: typed first, as a plan would, then evaluated.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/batch.h"
#include "expr/evaluate.h"
#include "expr/expr_access.h"
#include "expr/type_check.h"

namespace ember::testfn {

/// A batch of named columns.
inline Batch batch(std::vector<std::pair<std::string, Column>> cols) {
  std::vector<Field> fields;
  std::vector<Column> columns;
  for (auto& [name, c] : cols) {
    fields.push_back(Field{name, c.type()});
    columns.push_back(std::move(c));
  }
  return Batch(Schema(std::move(fields)), std::move(columns));
}

/// `e` over `b`, after checking that evaluation yields the plan-time type.
inline Column eval(const Expr& e, const Batch& b) {
  const auto& node = *detail::ExprAccess::node(e);
  const DataType planned = infer_type(node, b.schema());
  Column out = evaluate(node, b);
  if (out.type() != planned) {
    throw Error("planned " + planned.to_string() + " but evaluated " + out.type().to_string());
  }
  return out;
}

/// The plan-time type of `e` over `b`'s schema.
inline DataType type_of_expr(const Expr& e, const Batch& b) {
  return infer_type(*detail::ExprAccess::node(e), b.schema());
}

/// Row values of a column, nullopt for nulls.
template <class T>
std::vector<std::optional<T>> values(const Column& c) {
  std::vector<std::optional<T>> out;
  for (int64_t i = 0; i < c.size(); ++i) {
    if (c.is_null(i)) {
      out.push_back(std::nullopt);
    } else {
      out.push_back(T(c.value<T>(i)));
    }
  }
  return out;
}

}  // namespace ember::testfn
