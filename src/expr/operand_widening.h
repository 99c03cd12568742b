// The kernels compute on int64, float64, bool and utf8: narrower or tagged operands (int32,
// float32, timestamp, binary) are widened or relabelled to those first.
#pragma once

#include "expr/operand.h"

namespace ember {

/// int32 -> int64, float32 -> float64, timestamp -> int64 (its microseconds), binary -> utf8
/// (same bytes); other columns unchanged.
Column widened(const Column& c);

/// The same for an operand (a scalar too).
Operand widened(Operand o);

}  // namespace ember
