// Vector similarity over embeddings: dot product, cosine similarity, Euclidean distance.
#pragma once

#include "ember/column.h"
#include "expr/expr_node.h"
#include "expr/operand.h"

namespace ember {

/// dot, cosine_similarity or l2_distance of `a` and `b` row by row (float64), each a list or
/// fixed_size_list of float32/float64, or a literal list. Null where either is null, the lengths
/// differ or (cosine) a vector has no length. Reads the items in place: nothing is allocated
/// per row.
Column vector_function(FunctionId f, const Operand& a, const Operand& b, int64_t n);

}  // namespace ember
