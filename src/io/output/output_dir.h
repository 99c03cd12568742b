// Checks on a query's output directory, all made before any work runs: a write replaces the
// directory as a whole, so what it would destroy or read from must be refused up front.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ember {

/// A query's output directory: as the user named it (for messages) and resolved to an absolute
/// path with symbolic links followed, so that checks and renames act on the real directory.
struct OutputDir {
  std::string given;
  std::string path;  ///< absolute, lexically normal, links resolved where the path exists
  bool exists = false;
};

/// Resolves `dir`. Throws IoError when the name is empty, names something that is not a
/// directory (or a dangling link); InvalidArgument for the root directory, which has no parent
/// to stage beside.
OutputDir resolve_output_dir(const std::string& dir);

/// True for a name ember writes into an output directory: `part-*.csv`, `part-*.jsonl`,
/// `_SUCCESS`, and the `.part-*.tmp` file of a part being written.
bool is_output_file_name(std::string_view name);

/// Checks that the existing directory `dir` may be replaced as a whole. Throws InvalidArgument
/// when it holds an entry ember did not write (naming the directory and that entry) or is the
/// current working directory; IoError when it is not writable or is a mount point (a mount
/// point cannot be renamed). Reads only; changes nothing.
void check_replaceable(const OutputDir& dir);

/// Throws InvalidArgument, naming the file and the directory, when one of `inputs` (the files
/// the query reads, as its sources list them) lies inside `dir` after resolving both paths:
/// replacing the directory would destroy the query's own input.
void check_not_read_by_query(const OutputDir& dir, const std::vector<std::string>& inputs);

}  // namespace ember
