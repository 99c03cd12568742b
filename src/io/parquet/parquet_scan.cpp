// Parquet scan planning and row-group reading. A row group's chunks are read with pread, one
// column at a time, and handed out in batches of the requested size.
#include "io/parquet/parquet_scan.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <stdexcept>

#include "ember/error.h"
#include "io/byte_source.h"
#include "io/file_split.h"
#include "io/parquet/parquet_chunk_reader.h"
#include "io/parquet/parquet_column_builder.h"
#include "io/parquet/parquet_struct_fields.h"

namespace ember {

ParquetFile read_parquet_footer(const std::string& path, const StorageOptions& storage,
                                int64_t size) {
  const std::unique_ptr<ByteSource> f = open_byte_source(path, storage, size);
  ParquetFile file;
  file.path = path;
  file.storage = storage;
  file.size = f->size();
  if (file.size < 12)
    throw ParseError(path + ": not a Parquet file (" + std::to_string(file.size) +
                     " bytes, no PAR1 magic)");
  // The file's end, footer included when it is not larger than the guess; the head's magic
  // number is checked in the same request when the whole file fits.
  const int64_t guess = std::min(file.size, kFooterGuessBytes);
  const std::string end = f->read(file.size - guess, guess, "the footer");
  // A remote file's leading magic number would cost a request of its own: its trailing one,
  // the footer's checks and each chunk's page headers catch a file that is not Parquet.
  const std::string head = guess == file.size ? end.substr(0, 4)
                           : f->remote()      ? std::string("PAR1")
                                              : f->read(0, 4, "the footer");
  const std::string tail = end.substr(end.size() - 8);
  if (head != "PAR1" || tail.substr(4) != "PAR1")
    throw ParseError(path + ": not a Parquet file (bad magic number; expected PAR1 at both ends)");
  uint32_t len;
  std::memcpy(&len, tail.data(), 4);
  if (len > static_cast<uint64_t>(file.size) - 12)
    throw ParseError(path + ": footer length " + std::to_string(len) + " is larger than the file");
  const std::string footer = int64_t{len} + 8 <= guess
                                 ? end.substr(end.size() - 8 - len, len)
                                 : f->read(file.size - 8 - len, len, "the footer");
  try {
    file.meta =
        parquet::read_file_metadata(reinterpret_cast<const uint8_t*>(footer.data()), footer.size());
    file.schema = parquet::map_schema(file.meta);
    for (size_t g = 0; g < file.meta.row_groups.size(); ++g) {
      const auto& rg = file.meta.row_groups[g];
      if (static_cast<int>(rg.columns.size()) != file.schema.num_leaves)
        throw std::runtime_error("row group " + std::to_string(g) + " has " +
                                 std::to_string(rg.columns.size()) + " column chunks for " +
                                 std::to_string(file.schema.num_leaves) + " leaf columns");
      if (rg.num_rows < 0)
        throw std::runtime_error("row group " + std::to_string(g) + " has a negative row count");
    }
  } catch (const std::runtime_error& e) {
    throw ParseError(path + ": corrupt footer: " + e.what());
  }
  return file;
}

ParquetScan plan_parquet_scan(const std::string& path_or_glob,
                              const std::vector<std::string>& columns,
                              const StorageOptions& storage) {
  ParquetScan scan;
  for (const FoundFile& found : expand_files(path_or_glob, storage))
    scan.files.push_back(
        std::make_shared<const ParquetFile>(read_parquet_footer(found.path, storage, found.size)));
  const ParquetFile& first = *scan.files.front();
  std::vector<std::string> names = columns;
  if (names.empty()) {
    for (const auto& c : first.schema.columns) names.push_back(c.field.name);
  }
  std::vector<Field> fields;
  for (const std::string& name : names) {
    const parquet::LeafColumn* found = nullptr;
    for (const auto& c : first.schema.columns)
      if (c.field.name == name) found = &c;
    if (!found) {
      for (const auto& [n, why] : first.schema.unsupported)
        if (n == name)
          throw InvalidArgument(first.path + ": column '" + name + "' is " + why +
                                ", which ember does not read");
      std::string have;
      for (const auto& c : first.schema.columns) have += (have.empty() ? "" : ", ") + c.field.name;
      throw InvalidArgument(first.path + ": no column '" + name + "'; columns are: " + have);
    }
    fields.push_back(found->field);
  }
  if (columns.empty() && !first.schema.unsupported.empty()) {
    const auto& [n, why] = first.schema.unsupported.front();
    throw InvalidArgument(
        first.path + ": column '" + n + "' is " + why +
        ", which ember does not read; name the columns to read in ParquetOptions::columns");
  }
  scan.schema = Schema(fields);
  scan.column_names = names;
  for (size_t f = 0; f < scan.files.size(); ++f) {
    const ParquetFile& file = *scan.files[f];
    for (const Field& want : fields) {
      bool ok = false;
      for (const auto& c : file.schema.columns) ok |= c.field == want;
      if (!ok)
        throw InvalidArgument(file.path + ": column '" + want.name + "' is missing or not " +
                              want.type.to_string() + " as in " + first.path +
                              "; the files of one scan must share a schema");
    }
    for (size_t g = 0; g < file.meta.row_groups.size(); ++g)
      scan.parts.push_back({static_cast<int>(f), static_cast<int>(g)});
  }
  return scan;
}

namespace {

class RowGroupReader final : public BatchReader {
 public:
  RowGroupReader(std::shared_ptr<const ParquetFile> file, int row_group, const ParquetScan& scan,
                 int64_t batch_rows)
      : file_(std::move(file)),
        row_group_(row_group),
        names_(scan.column_names),
        schema_(scan.schema),
        struct_fields_(scan.struct_fields),
        batch_rows_(batch_rows) {}

  std::optional<Batch> next() override {
    if (!loaded_) load();
    if (pos_ >= rows_) return std::nullopt;
    const int64_t n = std::min(batch_rows_, rows_ - pos_);
    std::vector<Column> cols;
    for (const Column& c : columns_) cols.push_back(c.slice(pos_, n));
    pos_ += n;
    if (cols.empty()) return Batch::empty_with_rows(n);
    return Batch(schema_, std::move(cols));
  }
  int64_t bytes_read() const override { return bytes_read_; }

 private:
  void load() {
    loaded_ = true;
    const parquet::RowGroup& rg = file_->meta.row_groups[size_t(row_group_)];
    rows_ = rg.num_rows;
    // A row group without rows has nothing to read: writers leave its chunks' offsets at 0.
    if (rows_ == 0) return;
    const std::unique_ptr<ByteSource> f =
        open_byte_source(file_->path, file_->storage, file_->size);
    // Every primitive leaf the columns need: a nested column reads all of its leaves, a struct
    // read for some fields those of the fields.
    std::vector<const parquet::LeafColumn*> columns, leaves;
    std::deque<parquet::LeafColumn> narrowed;
    std::vector<ByteRange> ranges;
    for (const std::string& name : names_) {
      columns.push_back(leaf_named(name));
      if (const auto it = struct_fields_.find(name); it != struct_fields_.end()) {
        try {
          narrowed.push_back(parquet::keep_struct_fields(*columns.back(), it->second));
        } catch (const std::invalid_argument& e) {
          fail(name, e.what());
        }
        columns.back() = &narrowed.back();
      }
      if (!columns.back()->nested) leaves.push_back(columns.back());
      for (const parquet::LeafColumn& l : columns.back()->leaves) leaves.push_back(&l);
    }
    for (size_t k = 0; k < leaves.size(); ++k)
      ranges.push_back(chunk_range(rg, *leaves[k], leaves[k]->field.name));
    // Remote: every chunk in one go, neighbours merged into one request, requests concurrent.
    // Local: one chunk at a time, so that only one compressed chunk is held.
    std::vector<std::string> fetched;
    if (f->remote()) fetched = f->read_ranges(ranges, "a column chunk");
    size_t k = 0;
    for (size_t c = 0; c < columns.size(); ++c) {
      const parquet::LeafColumn& col = *columns[c];
      try {
        std::vector<parquet::ChunkData> chunks;
        for (size_t n = col.nested ? col.leaves.size() : 1; n > 0; --n, ++k) {
          const parquet::ColumnMeta& meta = rg.columns[size_t(leaves[k]->leaf_index)];
          const std::string bytes =
              f->remote() ? std::move(fetched[k])
                          : f->read(ranges[k].offset, ranges[k].size, "a column chunk");
          bytes_read_ += ranges[k].size;
          chunks.push_back(parquet::read_chunk(bytes, meta, *leaves[k]));
        }
        columns_.push_back(col.nested
                               ? parquet::assemble_nested(*col.nested, col.leaves, chunks, rows_)
                               : parquet::build_column(std::move(chunks[0]), col, rows_));
      } catch (const std::exception& e) {
        if (dynamic_cast<const Error*>(&e)) throw;
        fail(names_[c], e.what());
      }
    }
  }

  const parquet::LeafColumn* leaf_named(const std::string& name) const {
    for (const auto& c : file_->schema.columns)
      if (c.field.name == name) return &c;
    return nullptr;  // never: the scan's names come from this file's schema
  }

  /// The bytes of `leaf`'s chunk in `rg`, checked against the file's size.
  ByteRange chunk_range(const parquet::RowGroup& rg, const parquet::LeafColumn& leaf,
                        const std::string& name) const {
    const parquet::ColumnMeta& meta = rg.columns[size_t(leaf.leaf_index)];
    int64_t start = meta.data_page_offset;
    if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 &&
        *meta.dictionary_page_offset < start)
      start = *meta.dictionary_page_offset;
    const int64_t size = meta.total_compressed_size;
    if (start < 4 || size < 0 || start > file_->size || size > file_->size - start)
      fail(name, "column chunk [" + std::to_string(start) + ", +" + std::to_string(size) +
                     ") lies outside the file");
    if (meta.type != *leaf.element.type) fail(name, "chunk type differs from the schema");
    return ByteRange{start, size};
  }

  [[noreturn]] void fail(const std::string& name, const std::string& why) const {
    throw ParseError(file_->path + ": row group " + std::to_string(row_group_) + ", column '" +
                     name + "': " + why);
  }

  std::shared_ptr<const ParquetFile> file_;
  int row_group_;
  std::vector<std::string> names_;
  Schema schema_;
  std::map<std::string, std::set<std::string>> struct_fields_;
  int64_t batch_rows_;
  bool loaded_ = false;
  int64_t rows_ = 0, pos_ = 0;
  int64_t bytes_read_ = 0;  ///< the column chunks read
  std::vector<Column> columns_;
};

}  // namespace

std::unique_ptr<BatchReader> open_parquet_part(const ParquetScan& scan, int p, int64_t batch_rows) {
  if (batch_rows <= 0) throw InvalidArgument("batch rows must be positive");
  const ParquetScan::Part part = scan.parts.at(size_t(p));
  return std::make_unique<RowGroupReader>(scan.files[size_t(part.file)], part.row_group, scan,
                                          batch_rows);
}

}  // namespace ember
