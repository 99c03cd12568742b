// Files and byte ranges of files: the partitions of a file scan.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/storage_options.h"

namespace ember {

class StreamInput;

/// A byte range of a file that holds whole records: the records that start at offsets in
/// [begin, end) (end = -1: to the end of the file). `begin` is 0 or the first byte of a record,
/// as the planner found it (CSV: find_csv_record_starts, which follows quoting; JSON lines: the
/// byte after a '\n'), so a reader parses from `begin` with no guessing, and stops before the
/// first record that starts at or after `end`. Every record is read by exactly one split.
///
/// A pipe or device is one split, [0, -1), read through `stream`, which the planner opened and
/// sampled (see StreamInput); for a regular file `stream` is null and readers open `path`
/// (open_byte_source with `storage`: an s3:// or http(s):// path is read remotely).
struct FileSplit {
  std::string path;
  int64_t begin = 0;
  int64_t end = -1;
  std::shared_ptr<StreamInput> stream;
  int64_t file_size = -1;       ///< the whole file's size when known (saves asking a server again)
  StorageOptions storage = {};  ///< endpoint and credentials of a remote path
};

/// A file a path or glob names: its path (or URL) and, for a remote one, its size (-1 for a
/// local file, which is sized when opened).
struct FoundFile {
  std::string path;
  int64_t size = -1;
};

/// The files a path or glob names, sorted. Throws IoError if none exist or a file is unreadable
/// or is a directory. s3:// paths are expanded over the bucket's keys and http(s):// URLs
/// taken as they are (see expand_remote), with `storage`'s endpoint and credentials.
std::vector<FoundFile> expand_files(const std::string& path_or_glob,
                                    const StorageOptions& storage = {});

/// expand_files' paths alone.
std::vector<std::string> expand_paths(const std::string& path_or_glob,
                                      const StorageOptions& storage = {});

/// Size of a file in bytes. Throws IoError naming the file.
int64_t file_size(const std::string& path);

/// True when `path` is not a regular file but a pipe, FIFO or device: it cannot seek or be
/// read twice, so it is read as one stream partition. Throws IoError naming the file. A remote
/// path is never a stream.
bool is_stream_file(const std::string& path);

/// Offsets that cut a file of `size` bytes into about equal ranges of at most `split_bytes`
/// each: ascending, in (0, size), and none when `split_bytes` <= 0 or the file is not larger. A
/// cut is a raw byte offset; the planner moves it to the next record start.
std::vector<int64_t> cut_offsets(int64_t size, int64_t split_bytes);

/// The splits of the file `path` of `size` bytes that begin at 0 and at each of
/// `record_starts` (ascending record start offsets). A start that repeats the one before it,
/// or that is not below `size`, begins no split: that split would hold no record. Each split
/// carries `size` and `storage`.
std::vector<FileSplit> splits_at(const std::string& path, const std::vector<int64_t>& record_starts,
                                 int64_t size, const StorageOptions& storage = {});

}  // namespace ember
