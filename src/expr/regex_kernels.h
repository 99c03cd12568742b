// Regular-expression functions over utf8 columns, with RE2: matching takes time linear in the
// text whatever the pattern, so a user's pattern cannot stall a query.
#pragma once

#include "ember/column.h"
#include "expr/expr_node.h"

namespace ember {

/// InvalidArgument naming the pattern when it does not compile, or when str_extract's group
/// is not one of its capture groups; `root` is quoted.
void check_regex_params(const ExprNode& e, const ExprNode& root);

/// str_match, str_extract or str_replace_regex over the utf8 column `text`.
Column regex_function(const ExprNode& e, const Column& text);

}  // namespace ember
