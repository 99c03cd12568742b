// Parquet files that no ember writer makes (unsigned or TIME annotations, INTEGER logical types,
// two columns of one name): ember's writer writes the values, then the test edits the footer
// (schema annotations, names, statistics) and the file is put back together around it.
#pragma once

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

#include "io/output/partition_writer.h"
#include "io/parquet/parquet_metadata.h"
#include "io/temp_dir.h"

namespace ember::testing_io {

/// Writes `table` as `dir/name` (one row group), with its footer changed by `edit`.
inline std::string write_parquet_with_footer(
    const TempDir& dir, const std::string& name, const Table& table,
    const std::function<void(parquet::FileMetaData&)>& edit) {
  const std::string staging = dir.file(name + ".d");
  std::filesystem::create_directories(staging);
  auto w = open_partition_writer(staging, 0, table.schema(), FileFormat::Parquet, {});
  for (const Batch& b : table.batches()) w->write(b);
  w->commit();
  const std::string bytes = read_file(staging + "/part-00000.parquet");
  uint32_t len;
  std::memcpy(&len, bytes.data() + bytes.size() - 8, 4);
  const size_t footer_at = bytes.size() - 8 - len;
  parquet::FileMetaData meta =
      parquet::read_file_metadata(reinterpret_cast<const uint8_t*>(bytes.data()) + footer_at, len);
  edit(meta);
  const std::string footer = parquet::write_file_metadata(meta);
  const auto new_len = static_cast<uint32_t>(footer.size());
  std::string out = bytes.substr(0, footer_at) + footer;
  out.append(reinterpret_cast<const char*>(&new_len), 4);
  out += "PAR1";
  return dir.write(name, out);
}

/// The footer's schema element of top-level column `name` (flat columns only).
inline parquet::SchemaElement& schema_element(parquet::FileMetaData& meta,
                                              const std::string& name) {
  for (parquet::SchemaElement& e : meta.schema)
    if (e.name == name) return e;
  throw std::runtime_error("no schema element " + name);
}

/// Annotates column `name` with an INTEGER logical type and no converted type, as newer
/// writers may.
inline void set_integer_logical(parquet::FileMetaData& meta, const std::string& name, int bits,
                                bool is_signed) {
  parquet::SchemaElement& e = schema_element(meta, name);
  e.converted.reset();
  e.logical = parquet::Logical{};
  e.logical.kind = parquet::Logical::kInteger;
  e.logical.bit_width = bits;
  e.logical.is_signed = is_signed;
}

}  // namespace ember::testing_io
