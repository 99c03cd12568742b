// An Arrow IPC file's footer as a scan plans with it: the columns (with how their stored values
// convert) and the blocks of its record and dictionary batches.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/storage_options.h"
#include "ember/types.h"
#include "io/arrow/File_generated.h"
#include "io/arrow/arrow_field.h"
#include "io/arrow/flatbuffer_copy.h"
#include "io/file_split.h"

namespace ember {

namespace fb = org::apache::arrow::flatbuf;

using arrow_ipc::AlignedCopy;
using arrow_ipc::ArrowField;
using arrow_ipc::unaligned;

/// One file of a scan: its footer, as planning read it.
struct ArrowFile {
  std::string path;
  int64_t size = 0;             ///< bytes; only the footer is read when the scan is planned
  StorageOptions storage = {};  ///< endpoint and credentials of a remote path
  std::vector<ArrowField> fields;
  Schema schema;
  std::vector<fb::Block> blocks;
  std::vector<fb::Block> dictionary_blocks;  ///< in file order: a delta extends the one before
  /// The stream format: per record batch, how many dictionary blocks precede it (its
  /// dictionaries); empty for the file format, whose dictionaries serve every batch.
  std::vector<size_t> dictionaries_before;
};

/// Reads `found`'s footer with one request for the file's end (kArrowFooterGuessBytes) where
/// the footer fits, and maps its schema; or, for a file in the IPC stream format, indexes its
/// messages (arrow_stream_index.h). ParseError naming the file when it is malformed;
/// InvalidArgument naming a column of a type ember does not read.
std::shared_ptr<ArrowFile> read_arrow_footer(const FoundFile& found, const StorageOptions& storage);

}  // namespace ember
