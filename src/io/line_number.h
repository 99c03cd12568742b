// Turning a byte offset into a 1-based line number, for error messages.
#pragma once

#include <cstdint>
#include <string>

namespace ember {

/// The 1-based line that contains byte `offset` of `path` (newlines before it, plus one).
/// Reads the file from its start, so call it only when reporting an error; 0 if unreadable.
int64_t line_number_at(const std::string& path, int64_t offset);

}  // namespace ember
