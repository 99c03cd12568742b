// Parquet scan planning and row-group reading. A row group's chunks are read with pread, one
// column at a time (remote: all at once, possibly fetched ahead), and handed out in batches of
// the requested size.
#include "io/parquet/parquet_scan.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <optional>
#include <stdexcept>
#include <thread>

#include "core/scratch_room.h"
#include "ember/error.h"
#include "io/byte_source.h"
#include "io/file_split.h"
#include "io/parquet/parquet_chunk_reader.h"
#include "io/parquet/parquet_column_builder.h"
#include "io/parquet/parquet_struct_fields.h"
#include "io/storage/storage_url.h"

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

/// This thread's buffer for a local file's compressed column chunks, read one at a time and
/// decoded at once: kept from chunk to chunk, up to kKeptChunkBytes.
ScratchRoom<char>& chunk_buffer() {
  thread_local ScratchRoom<char> buffer;
  return buffer;
}
constexpr size_t kKeptChunkBytes = 64 << 20;

[[noreturn]] void chunk_error(const ParquetFile& file, int row_group, const std::string& name,
                              const std::string& why) {
  throw ParseError(file.path + ": row group " + std::to_string(row_group) + ", column '" + name +
                   "': " + why);
}

/// The column chunks a row group's read needs: every primitive leaf of the columns (a nested
/// column reads all of its leaves, a struct read for some fields those of the fields), and
/// where each lies in the file.
struct ChunkPlan {
  std::vector<const parquet::LeafColumn*> columns;  ///< per column read
  std::vector<const parquet::LeafColumn*> leaves;   ///< the chunks, in column order
  std::deque<parquet::LeafColumn> narrowed;         ///< structs narrowed to some fields
  std::vector<ByteRange> ranges;                    ///< per leaf
};

/// The bytes of `leaf`'s chunk in `rg`, checked against the file's size.
ByteRange chunk_range(const ParquetFile& file, int row_group, const parquet::LeafColumn& leaf,
                      const std::string& name) {
  const parquet::RowGroup& rg = file.meta.row_groups[size_t(row_group)];
  const parquet::ColumnMeta& meta = rg.columns[size_t(leaf.leaf_index)];
  int64_t start = meta.data_page_offset;
  if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 &&
      *meta.dictionary_page_offset < start)
    start = *meta.dictionary_page_offset;
  const int64_t size = meta.total_compressed_size;
  if (start < 4 || size < 0 || start > file.size || size > file.size - start)
    chunk_error(file, row_group, name,
                "column chunk [" + std::to_string(start) + ", +" + std::to_string(size) +
                    ") lies outside the file");
  if (meta.type != *leaf.element.type)
    chunk_error(file, row_group, name, "chunk type differs from the schema");
  return ByteRange{start, size};
}

std::unique_ptr<ChunkPlan> plan_chunks(const ParquetFile& file, int row_group,
                                       const ParquetScan& scan) {
  auto plan = std::make_unique<ChunkPlan>();
  for (const std::string& name : scan.column_names) {
    const parquet::LeafColumn* column = nullptr;
    for (const auto& c : file.schema.columns)
      if (c.field.name == name) column = &c;  // always found: the names come from this schema
    if (const auto it = scan.struct_fields.find(name); it != scan.struct_fields.end()) {
      try {
        plan->narrowed.push_back(parquet::keep_struct_fields(*column, it->second));
      } catch (const std::invalid_argument& e) {
        chunk_error(file, row_group, name, e.what());
      }
      column = &plan->narrowed.back();
    }
    plan->columns.push_back(column);
    if (!column->nested) plan->leaves.push_back(column);
    for (const parquet::LeafColumn& l : column->leaves) plan->leaves.push_back(&l);
  }
  for (const parquet::LeafColumn* leaf : plan->leaves)
    plan->ranges.push_back(chunk_range(file, row_group, *leaf, leaf->field.name));
  return plan;
}

bool same_ranges(const std::vector<ByteRange>& a, const std::vector<ByteRange>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](ByteRange x, ByteRange y) {
    return x.offset == y.offset && x.size == y.size;
  });
}

/// A remote row group's column chunks, fetched on a thread of its own while earlier row groups
/// decode.
class ChunkPrefetch final : public Prefetched {
 public:
  ChunkPrefetch(std::shared_ptr<const ParquetFile> file, std::vector<ByteRange> ranges)
      : ranges_(std::move(ranges)) {
    worker_ = std::thread([this, file = std::move(file)] {
      try {
        bytes_ = open_byte_source(file->path, file->storage, file->size)
                     ->read_ranges(ranges_, "a column chunk");
      } catch (...) {
        failed_ = true;  // the reader reads again, and reports what fails then
      }
    });
  }
  ~ChunkPrefetch() override {
    if (worker_.joinable()) worker_.join();
  }
  /// The chunks, once fetched, when they are `ranges`; nothing when the fetch failed.
  std::optional<std::vector<std::string>> take(const std::vector<ByteRange>& ranges) {
    if (worker_.joinable()) worker_.join();
    if (failed_ || !same_ranges(ranges, ranges_)) return std::nullopt;
    return std::move(bytes_);
  }

 private:
  std::vector<ByteRange> ranges_;
  std::vector<std::string> bytes_;
  bool failed_ = false;
  std::thread worker_;  ///< last: it starts once the rest is in place
};

class RowGroupReader final : public BatchReader {
 public:
  RowGroupReader(std::shared_ptr<const ParquetFile> file, int row_group, const ParquetScan& scan,
                 int64_t batch_rows, std::shared_ptr<Prefetched> ahead)
      : file_(std::move(file)),
        row_group_(row_group),
        scan_(scan),
        batch_rows_(batch_rows),
        ahead_(std::move(ahead)) {}

  std::optional<Batch> next() override {
    if (!loaded_) load();
    if (pos_ >= rows_) return std::nullopt;
    const int64_t n = std::min(batch_rows_, rows_ - pos_);
    std::vector<Column> cols;
    for (const Column& c : columns_) cols.push_back(c.slice(pos_, n));
    pos_ += n;
    if (cols.empty()) return Batch::empty_with_rows(n);
    return Batch(scan_.schema, std::move(cols));
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
    const std::unique_ptr<ChunkPlan> plan = plan_chunks(*file_, row_group_, scan_);
    // Remote: every chunk in one go (fetched ahead while earlier row groups decoded, when the
    // run asked for that), neighbours merged into one request, requests concurrent. Local: one
    // chunk at a time, so that only one compressed chunk is held.
    std::vector<std::string> fetched;
    if (f->remote()) {
      std::optional<std::vector<std::string>> ahead;
      if (auto* prefetch = dynamic_cast<ChunkPrefetch*>(ahead_.get()))
        ahead = prefetch->take(plan->ranges);
      ahead_.reset();
      fetched = ahead ? std::move(*ahead) : f->read_ranges(plan->ranges, "a column chunk");
    }
    size_t k = 0;
    for (size_t c = 0; c < plan->columns.size(); ++c) {
      const parquet::LeafColumn& col = *plan->columns[c];
      try {
        std::vector<parquet::ChunkData> chunks;
        for (size_t n = col.nested ? col.leaves.size() : 1; n > 0; --n, ++k) {
          const parquet::ColumnMeta& meta = rg.columns[size_t(plan->leaves[k]->leaf_index)];
          const ByteRange& range = plan->ranges[k];
          std::string_view bytes;
          if (f->remote()) {
            bytes = fetched[k];
          } else {  // into this thread's chunk buffer, kept from chunk to chunk
            char* into = chunk_buffer().room(static_cast<size_t>(range.size));
            f->read_into(into, range.offset, range.size, "a column chunk");
            bytes = std::string_view(into, static_cast<size_t>(range.size));
          }
          bytes_read_ += range.size;
          chunks.push_back(parquet::read_chunk(bytes, meta, *plan->leaves[k], !col.nested));
        }
        columns_.push_back(col.nested
                               ? parquet::assemble_nested(*col.nested, col.leaves, chunks, rows_)
                               : parquet::build_column(std::move(chunks[0]), col, rows_));
      } catch (const std::exception& e) {
        if (dynamic_cast<const Error*>(&e)) throw;
        chunk_error(*file_, row_group_, scan_.column_names[c], e.what());
      }
    }
    chunk_buffer().trim(kKeptChunkBytes);
  }

  std::shared_ptr<const ParquetFile> file_;
  int row_group_;
  const ParquetScan& scan_;  ///< the source's, which outlives its readers
  int64_t batch_rows_;
  std::shared_ptr<Prefetched> ahead_;
  bool loaded_ = false;
  int64_t rows_ = 0, pos_ = 0;
  int64_t bytes_read_ = 0;  ///< the column chunks read
  std::vector<Column> columns_;
};

}  // namespace

std::unique_ptr<BatchReader> open_parquet_part(const ParquetScan& scan, int p, int64_t batch_rows,
                                               std::shared_ptr<Prefetched> ahead) {
  if (batch_rows <= 0) throw InvalidArgument("batch rows must be positive");
  const ParquetScan::Part part = scan.parts.at(size_t(p));
  return std::make_unique<RowGroupReader>(scan.files[size_t(part.file)], part.row_group, scan,
                                          batch_rows, std::move(ahead));
}

std::shared_ptr<Prefetched> prefetch_parquet_part(const ParquetScan& scan, int p) {
  if (p < 0 || static_cast<size_t>(p) >= scan.parts.size()) return nullptr;
  const ParquetScan::Part part = scan.parts[size_t(p)];
  const std::shared_ptr<const ParquetFile>& file = scan.files[size_t(part.file)];
  if (!is_remote_path(file->path) || file->meta.row_groups[size_t(part.row_group)].num_rows == 0)
    return nullptr;
  try {
    return std::make_shared<ChunkPrefetch>(file, plan_chunks(*file, part.row_group, scan)->ranges);
  } catch (const Error&) {
    return nullptr;  // a corrupt row group: its reader says so
  }
}

}  // namespace ember
