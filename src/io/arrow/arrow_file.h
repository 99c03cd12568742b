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
#include "io/file_split.h"

namespace ember {

namespace fb = org::apache::arrow::flatbuf;

/// An ember type and how its stored values convert (timestamps and date64 to microseconds,
/// integers to the ember integer that holds them).
struct ArrowField {
  std::string name;  ///< the top-level column's name, for errors about a value
  DataType type;
  int64_t multiply = 1, divide = 1;  ///< timestamps: to microseconds
  int int_bytes = 0;                 ///< integers: the stored width (1, 2, 4 or 8 bytes)
  bool int_unsigned = false;
  std::vector<ArrowField> children;
  /// Dictionary-encoded: the dictionary's id and its indices' width and sign (the field's other
  /// members describe the dictionary's values).
  std::optional<int64_t> dictionary;
  int index_bytes = 4;
  bool index_signed = true;
};

/// One file of a scan: its footer, as planning read it.
struct ArrowFile {
  std::string path;
  int64_t size = 0;             ///< bytes; only the footer is read when the scan is planned
  StorageOptions storage = {};  ///< endpoint and credentials of a remote path
  std::vector<ArrowField> fields;
  Schema schema;
  std::vector<fb::Block> blocks;
  std::vector<fb::Block> dictionary_blocks;  ///< in file order: a delta extends the one before
};

/// A copy of a FlatBuffers struct read byte-wise: in a corrupt file a vector of structs may sit
/// at an offset that is not a multiple of the struct's alignment.
template <class T>
T unaligned(const T* p) {
  T out;
  std::memcpy(static_cast<void*>(&out), p, sizeof(T));
  return out;
}

// FlatBuffers are verified relative to their first byte, but read through typed pointers: a
// buffer at an odd place in the file is copied to 8-byte aligned memory first.
class AlignedCopy {
 public:
  AlignedCopy(const char* p, size_t n) : words_((n + 7) / 8) {
    if (n) std::memcpy(words_.data(), p, n);
  }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words_.data()); }

 private:
  std::vector<uint64_t> words_;
};

/// Reads `found`'s footer with one request for the file's end (kArrowFooterGuessBytes) where
/// the footer fits, and maps its schema. ParseError naming the file when it is malformed;
/// InvalidArgument naming a column of a type ember does not read.
std::shared_ptr<ArrowFile> read_arrow_footer(const FoundFile& found, const StorageOptions& storage);

}  // namespace ember
