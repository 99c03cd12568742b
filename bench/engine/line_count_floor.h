// The I/O floor of reading a text file: count its newlines with memchr, nothing else.
#pragma once

#include <cstdint>
#include <string>

namespace ember::bench {

/// Newlines in the file at `path`, read with pread in 4 MiB blocks and scanned with memchr.
/// `threads` > 1 splits the file into that many contiguous byte ranges, one per thread.
/// Throws std::runtime_error when the file cannot be read.
int64_t count_lines(const std::string& path, int threads = 1);

}  // namespace ember::bench
