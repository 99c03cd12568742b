// Text functions over whole utf8 columns: lengths, case, search, slices, splitting, padding.
// Positions and lengths count Unicode code points; bytes that are not valid UTF-8 count as one
// code point each.
#pragma once

#include <vector>

#include "ember/column.h"
#include "expr/expr_node.h"

namespace ember {

/// InvalidArgument for a text function's bad constant argument (a negative length or width, a
/// fill that is not one code point), quoting `root`.
void check_text_params(const ExprNode& e, const ExprNode& root);

/// The text function of `e` (not concat, not the regex ones) over the utf8 column `text`.
Column string_function(const ExprNode& e, const Column& text);

/// Row-wise concatenation of utf8 columns of `n` rows; null where any part is null.
Column concat_texts(const std::vector<Column>& parts, int64_t n);

}  // namespace ember
