// Columns of a binary file (Parquet, Arrow IPC) that share a name: each gets a name of its own,
// so that a column reference can never read one column's values under another's name.
#pragma once

#include <string>
#include <vector>

namespace ember {

/// `names` with every repeat of a name renamed `name_1`, `name_2`, ... (the first suffix that no
/// column of `names` carries and no earlier rename took), as DuckDB does; the first column of a
/// name, and every name that occurs once, is kept. Names compare exactly (case-sensitively), as
/// ember's column references do.
std::vector<std::string> rename_duplicate_columns(std::vector<std::string> names);

}  // namespace ember
