// The Parquet writer: each leaf of each column of a row group becomes one column chunk
// (parquet_chunk_writer.h); a nested column's leaves get their levels from a Dremel walk.
#include "io/parquet/parquet_writer.h"

#include <functional>
#include <stdexcept>
#include <string_view>

#include "ember/error.h"
#include "io/parquet/parquet_chunk_writer.h"
#include "io/parquet/parquet_levels.h"
#include "io/parquet/parquet_metadata.h"

namespace ember {

namespace {

using namespace parquet;

int32_t codec_of(Compression c) {
  switch (c) {
    case Compression::Snappy:
      return kSnappy;
    case Compression::Zstd:
      return kZstd;
    case Compression::Gzip:
      return kGzip;
    case Compression::Lz4:
      return kLz4Raw;
    default:
      return kUncompressed;
  }
}

}  // namespace

struct ParquetWriter::Footer {
  FileMetaData meta;
};

void check_parquet_schema(const Schema& schema) {
  std::vector<SchemaElement> elements;
  for (const Field& f : schema.fields()) append_schema_elements(f, &elements);
}

ParquetWriter::ParquetWriter(const std::string& dir, const std::string& name, const Schema& schema,
                             ParquetWriteOptions options)
    : file_(dir, name),
      schema_(schema),
      options_(options),
      pending_(size_t(schema.num_fields())),
      footer_(std::make_shared<Footer>()) {
  check_parquet_schema(schema_);
  if (options_.row_group_rows < 1)
    throw InvalidArgument("ParquetWriteOptions::row_group_rows must be >= 1, got " +
                          std::to_string(options_.row_group_rows));
  file_.write("PAR1");
  offset_ = 4;
  FileMetaData& m = footer_->meta;
  m.created_by = "ember";
  SchemaElement root;
  root.name = "schema";
  root.num_children = schema.num_fields();
  root.repetition = kRequired;
  m.schema.push_back(root);
  for (const Field& f : schema.fields()) {
    append_schema_elements(f, &m.schema);
    leaves_.push_back(write_leaves(f));
  }
}

void ParquetWriter::write(const Batch& batch) {
  if (!(batch.schema() == schema_)) {
    throw InvalidArgument("batch schema (" + batch.schema().to_string() +
                          ") differs from the output schema (" + schema_.to_string() + ")");
  }
  int64_t pos = 0;
  while (pos < batch.num_rows()) {
    const int64_t take = std::min(batch.num_rows() - pos, options_.row_group_rows - pending_rows_);
    for (int c = 0; c < batch.num_columns(); ++c)
      pending_[size_t(c)].push_back(batch.column(c).slice(pos, take));
    pending_rows_ += take;
    pos += take;
    if (pending_rows_ == options_.row_group_rows) flush_row_group();
  }
}

void ParquetWriter::flush_row_group() {
  if (pending_rows_ == 0) return;
  RowGroup g;
  g.num_rows = pending_rows_;
  const int32_t codec = codec_of(options_.compression);
  // Pages go to the file a few MiB at a time, through one buffer kept from chunk to chunk.
  const std::function<void(std::string_view)> flush = [&](std::string_view bytes) {
    file_.write(bytes);
    offset_ += static_cast<int64_t>(bytes.size());
  };
  const auto write_chunk = [&](const ChunkInput& in) {
    chunk_.clear();
    g.columns.push_back(write_column_chunk(in, codec, &chunk_, offset_, flush));
    g.total_byte_size += g.columns.back().total_uncompressed_size;
    flush(chunk_);
  };
  try {
    for (int c = 0; c < schema_.num_fields(); ++c) {
      // The parts as the batches brought them: a row group is not copied into one column.
      const std::vector<Column> parts = std::move(pending_[size_t(c)]);
      pending_[size_t(c)].clear();
      for (const WriteLeaf& leaf : leaves_[size_t(c)]) {
        ChunkInput in{leaf, {}};
        std::vector<LeafLevels> levels;
        if (leaf.steps.empty()) {  // a primitive column: its nulls are its levels
          for (const Column& part : parts) in.parts.push_back({&part, nullptr});
        } else {
          levels.reserve(parts.size());
          for (const Column& part : parts) {
            levels.push_back(leaf_levels(part, leaf.steps, schema_.field(c).name));
            in.parts.push_back({&levels.back().values, &levels.back()});
          }
        }
        write_chunk(in);
      }
    }
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const Error*>(&e)) throw;
    throw IoError(file_.temp_path() + ": " + e.what());
  }
  footer_->meta.num_rows += pending_rows_;
  footer_->meta.row_groups.push_back(std::move(g));
  pending_rows_ = 0;
}

void ParquetWriter::commit() {
  flush_row_group();
  const std::string footer = write_file_metadata(footer_->meta);
  const uint32_t n = static_cast<uint32_t>(footer.size());
  std::string tail = footer;
  tail.append(reinterpret_cast<const char*>(&n), 4);
  tail.append("PAR1");
  file_.write(tail);
  file_.commit();
}

}  // namespace ember
