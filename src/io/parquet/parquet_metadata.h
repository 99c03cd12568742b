// Parquet's footer and page headers as plain structs (the fields ember uses, by the format's
// Thrift field ids), read from and written to the compact protocol.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ember::parquet {

enum PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7
};
enum Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };
enum Codec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,
  kZstd = 6,
  kLz4Raw = 7
};
enum Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9
};
enum PageType : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };
/// ConvertedType values ember reads or writes.
enum Converted : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32C = 17,
  kInt64C = 18,
  kJson = 19
};
/// The logical type, flattened: which annotation and its parameters.
struct Logical {
  enum Kind {
    kNone,
    kString,
    kMap,
    kList,
    kDecimal,
    kDate,
    kTime,
    kTimestamp,
    kInteger,
    kFloat16,
    kOther
  } kind = kNone;
  int32_t scale = 0, precision = 0;
  int time_unit = 0;  ///< TIME and TIMESTAMP: 1 millis, 2 micros, 3 nanos
  int bit_width = 0;
  bool is_signed = true;
};

struct SchemaElement {
  std::optional<int32_t> type;  ///< absent for groups
  int32_t type_length = 0;
  int32_t repetition = kRequired;
  std::string name;
  int32_t num_children = 0;
  std::optional<int32_t> converted;
  int32_t scale = 0, precision = 0;
  Logical logical;
};

struct Statistics {
  std::optional<std::string> min, max;                ///< min_value/max_value
  std::optional<std::string> legacy_min, legacy_max;  ///< min/max: trusted for numbers only
  std::optional<int64_t> null_count;
};

struct ColumnMeta {
  int32_t type = 0;
  std::vector<int32_t> encodings;
  std::vector<std::string> path;
  int32_t codec = 0;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  std::optional<int64_t> dictionary_page_offset;
  Statistics stats;
};

struct RowGroup {
  std::vector<ColumnMeta> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
};

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::string created_by;
};

struct PageHeader {
  int32_t type = 0;
  int32_t uncompressed_size = 0;
  int32_t compressed_size = 0;
  int32_t num_values = 0;  ///< data and dictionary pages
  int32_t encoding = 0;
  // v2 only
  int32_t num_nulls = 0, num_rows = 0;
  int32_t def_levels_bytes = 0, rep_levels_bytes = 0;
  bool is_compressed = true;
};

/// Parse the footer / a page header; throw std::runtime_error on malformed input. A page
/// header's size in bytes is stored in `*consumed`.
FileMetaData read_file_metadata(const uint8_t* data, size_t size);
PageHeader read_page_header(const uint8_t* data, size_t size, size_t* consumed);

/// Serialise (for the writer).
std::string write_file_metadata(const FileMetaData& m);
std::string write_page_header(const PageHeader& h);

}  // namespace ember::parquet
