// hash(): XXH64 of each value's canonical bytes, the same on every run, machine and version.
#pragma once

#include "ember/column.h"

namespace ember {

/// int64 hashes of `c` (never negative): XXH64, seed 0, of the canonical bytes of each value,
/// shifted right one bit (Expr::hash() documents the bytes). Null stays null.
Column hash_values(const Column& c);

}  // namespace ember
