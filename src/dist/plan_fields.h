// The parts of a logical plan that travel in the cluster's messages: schemas, expressions (with
// their literals and UDF-free calls) and lists of names, in the runner's message framing.
#pragma once

#include <string>
#include <vector>

#include "ember/types.h"
#include "expr/expr_node.h"
#include "udf/process/wire_message.h"

namespace ember::dist {

/// Thrown while encoding a plan whose shape stays on rank 0; `why` says what keeps it there.
struct NotSpreadable {
  std::string why;
};

void put_schema(process::MessageWriter& out, const Schema& schema);
Schema get_schema(process::MessageReader& in);

/// `e` may be an aggregate (under aliases) when `aggregate`: one of a group-by's or agg()'s
/// outputs. A stateless UDF call, or an aggregate where none belongs, is NotSpreadable.
void put_expr(process::MessageWriter& out, const ExprNode& e, bool aggregate = false);
void put_exprs(process::MessageWriter& out, const std::vector<ExprPtr>& exprs, bool aggregates);
ExprPtr get_expr(process::MessageReader& in);
std::vector<ExprPtr> get_exprs(process::MessageReader& in);

void put_strings(process::MessageWriter& out, const std::vector<std::string>& v);
std::vector<std::string> get_strings(process::MessageReader& in);

}  // namespace ember::dist
