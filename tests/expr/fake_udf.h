// A UdfHandle for expression tests, which see UDFs only through that interface: a name, a
// declared type, statefulness and an inline function.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/udf_handle.h"
#include "expr/expr_access.h"
#include "expr/expr_node.h"

namespace ember::testref {

class FakeUdf final : public UdfHandle {
 public:
  FakeUdf(std::string name, std::optional<DataType> type, bool stateful,
          std::function<Column(const Batch&)> fn = nullptr)
      : name_(std::move(name)), type_(std::move(type)), stateful_(stateful), fn_(std::move(fn)) {}
  const std::string& udf_name() const override { return name_; }
  const std::optional<DataType>& declared_type() const override { return type_; }
  bool is_stateful() const override { return stateful_; }
  Column call_inline(const Batch& args) const override { return fn_(args); }

 private:
  std::string name_;
  std::optional<DataType> type_;
  bool stateful_;
  std::function<Column(const Batch&)> fn_;
};

/// A call of `udf` on `args`, built as Udf::operator() would.
inline Expr call(std::shared_ptr<const UdfHandle> udf, std::vector<Expr> args) {
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::UdfCall;
  n->udf = std::move(udf);
  for (const Expr& a : args) n->children.push_back(detail::ExprAccess::node(a));
  return detail::ExprAccess::make(std::move(n));
}

}  // namespace ember::testref
