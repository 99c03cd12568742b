// The Parquet writer: each column of a row group becomes one column chunk (an optional
// dictionary page, then data pages of at most kPageRows rows, v1 with RLE levels).
#include "io/parquet/parquet_writer.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "core/bitmap.h"
#include "ember/error.h"
#include "io/parquet/parquet_codecs.h"
#include "io/parquet/parquet_encodings.h"
#include "io/parquet/parquet_metadata.h"

namespace ember {

namespace {

using namespace parquet;

constexpr int64_t kPageRows = 64 * 1024;

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

// The leaf (primitive) schema element of an ember type.
SchemaElement leaf_element(const DataType& t, const std::string& name) {
  SchemaElement e;
  e.name = name;
  e.repetition = kOptional;
  switch (t.id()) {
    case TypeId::Boolean:
      e.type = kBoolean;
      break;
    case TypeId::Int32:
      e.type = kInt32;
      break;
    case TypeId::Int64:
      e.type = kInt64;
      break;
    case TypeId::Float32:
      e.type = kFloat;
      break;
    case TypeId::Float64:
      e.type = kDouble;
      break;
    case TypeId::Utf8:
      e.type = kByteArray;
      e.converted = kUtf8;
      e.logical.kind = Logical::kString;
      break;
    case TypeId::Binary:
      e.type = kByteArray;
      break;
    case TypeId::Date32:
      e.type = kInt32;
      e.converted = kDate;
      e.logical.kind = Logical::kDate;
      break;
    case TypeId::Timestamp:
      e.type = kInt64;
      e.converted = kTimestampMicros;
      e.logical.kind = Logical::kTimestamp;
      e.logical.time_unit = 2;
      break;
    default:
      throw InvalidArgument("Parquet cannot hold column '" + name + "' of type " + t.to_string());
  }
  return e;
}

// PLAIN bytes of one value, for statistics and dictionary keys.
std::string plain_value(const Column& c, int64_t i) {
  const int w = c.type().byte_width();
  if (w > 0)
    return std::string(
        reinterpret_cast<const char*>(c.values_buffer()->data()) + (c.offset() + i) * w, size_t(w));
  if (c.type().id() == TypeId::Boolean) return std::string(1, c.value<bool>(i) ? '\1' : '\0');
  return std::string(c.value<std::string_view>(i));
}

// Orders two non-null values of `c`'s type the way Parquet's statistics do.
bool value_less(const Column& c, int64_t a, int64_t b) {
  switch (c.type().id()) {
    case TypeId::Boolean:
      return !c.value<bool>(a) && c.value<bool>(b);
    case TypeId::Int32:
      return c.value<int32_t>(a) < c.value<int32_t>(b);
    case TypeId::Date32:
      return c.values<int32_t>()[a] < c.values<int32_t>()[b];
    case TypeId::Int64:
    case TypeId::Timestamp:
      return c.values<int64_t>()[a] < c.values<int64_t>()[b];
    case TypeId::Float32:
      return c.value<float>(a) < c.value<float>(b);
    case TypeId::Float64:
      return c.value<double>(a) < c.value<double>(b);
    default: {  // unsigned byte order
      const std::string_view x = c.value<std::string_view>(a), y = c.value<std::string_view>(b);
      return x < y;
    }
  }
}

bool is_nan(const Column& c, int64_t i) {
  if (c.type().id() == TypeId::Float32) return std::isnan(c.value<float>(i));
  if (c.type().id() == TypeId::Float64) return std::isnan(c.value<double>(i));
  return false;
}

// One page's worth of a column as levels and the row indices (into `items`) of its values.
struct PageSlice {
  std::vector<uint32_t> defs, reps;
  std::vector<int64_t> value_rows;  ///< rows of `items` holding the page's non-null values
};

PageSlice slice_levels(const Column& c, int64_t first, int64_t rows) {
  PageSlice s;
  if (!c.type().is_list()) {
    for (int64_t i = first; i < first + rows; ++i) {
      const bool v = !c.is_null(i);
      s.defs.push_back(v ? 1 : 0);
      if (v) s.value_rows.push_back(i);
    }
    return s;
  }
  const Column& items = c.child();
  for (int64_t i = first; i < first + rows; ++i) {
    if (c.is_null(i)) {
      s.defs.push_back(0), s.reps.push_back(0);
      continue;
    }
    const auto [b, e] = c.list_range(i);
    if (b == e) {
      s.defs.push_back(1), s.reps.push_back(0);
      continue;
    }
    for (int64_t j = b; j < e; ++j) {
      s.reps.push_back(j == b ? 0 : 1);
      if (items.is_null(j)) {
        s.defs.push_back(2);
      } else {
        s.defs.push_back(3);
        s.value_rows.push_back(j);
      }
    }
  }
  return s;
}

void append_levels(std::string* out, const std::vector<uint32_t>& levels, int max) {
  std::string rle;
  encode_rle(levels, max <= 1 ? 1 : 2, &rle);
  const uint32_t n = static_cast<uint32_t>(rle.size());
  out->append(reinterpret_cast<const char*>(&n), 4);
  out->append(rle);
}

void append_plain(std::string* out, const Column& v, const std::vector<int64_t>& rows) {
  if (v.type().id() == TypeId::Boolean) {
    std::string bits((rows.size() + 7) / 8, '\0');
    for (size_t k = 0; k < rows.size(); ++k)
      if (v.value<bool>(rows[k])) bits[k >> 3] = static_cast<char>(bits[k >> 3] | (1 << (k & 7)));
    out->append(bits);
    return;
  }
  const int w = v.type().byte_width();
  for (int64_t r : rows) {
    if (w > 0) {
      out->append(reinterpret_cast<const char*>(v.values_buffer()->data()) + (v.offset() + r) * w,
                  size_t(w));
    } else {
      const std::string_view s = v.value<std::string_view>(r);
      const uint32_t n = static_cast<uint32_t>(s.size());
      out->append(reinterpret_cast<const char*>(&n), 4);
      out->append(s);
    }
  }
}

struct ChunkWriter {
  int32_t codec;
  std::string* out;  ///< the file's pending bytes
  int64_t base;      ///< file offset of out->data()
  int64_t uncompressed_total = 0;

  int64_t page(PageHeader h, const std::string& body) {
    const std::string compressed = compress(codec, body);
    h.uncompressed_size = static_cast<int32_t>(body.size());
    h.compressed_size = static_cast<int32_t>(compressed.size());
    const int64_t at = base + static_cast<int64_t>(out->size());
    const std::string header = write_page_header(h);
    out->append(header);
    out->append(compressed);
    uncompressed_total += static_cast<int64_t>(header.size() + body.size());
    return at;
  }
};

// Writes one column chunk of a row group; returns its metadata.
ColumnMeta write_chunk(const Column& c, const std::string& name, int32_t codec, std::string* out,
                       int64_t base) {
  const bool is_list = c.type().is_list();
  const Column& values = is_list ? c.child() : c;
  const SchemaElement leaf = leaf_element(values.type(), name);
  ColumnMeta m;
  m.type = *leaf.type;
  m.codec = codec;
  m.path =
      is_list ? std::vector<std::string>{name, "list", "element"} : std::vector<std::string>{name};
  ChunkWriter w{codec, out, base};
  const int64_t start = base + static_cast<int64_t>(out->size());

  // Dictionary for strings with few distinct values.
  std::unordered_map<std::string_view, uint32_t> dict;
  std::vector<int64_t> dict_rows;
  bool use_dict = values.type().id() == TypeId::Utf8;
  if (use_dict) {
    for (int64_t i = 0; i < values.size() && use_dict; ++i) {
      if (values.is_null(i)) continue;
      auto [it, added] =
          dict.emplace(values.value<std::string_view>(i), static_cast<uint32_t>(dict.size()));
      if (added) dict_rows.push_back(i);
      use_dict = dict.size() <= 4096 && static_cast<int64_t>(dict.size()) * 4 <= values.size() + 64;
    }
  }
  if (use_dict) {
    std::string body;
    append_plain(&body, values, dict_rows);
    PageHeader h;
    h.type = kDictionaryPage;
    h.num_values = static_cast<int32_t>(dict_rows.size());
    h.encoding = kPlain;
    m.dictionary_page_offset = w.page(h, body);
  }

  // Statistics over the non-null values (NaN left out, as the format asks).
  int64_t nulls = 0;
  std::optional<int64_t> lo, hi;
  for (int64_t i = 0; i < c.size(); ++i) nulls += c.is_null(i);
  if (!is_list) {
    for (int64_t i = 0; i < values.size(); ++i) {
      if (values.is_null(i) || is_nan(values, i)) continue;
      if (!lo || value_less(values, i, *lo)) lo = i;
      if (!hi || value_less(values, *hi, i)) hi = i;
    }
    m.stats.null_count = nulls;
    if (lo && values.type().id() != TypeId::Binary) {
      m.stats.min = plain_value(values, *lo);
      m.stats.max = plain_value(values, *hi);
    }
  }

  bool first_page = true;
  for (int64_t first = 0; first < c.size() || first_page; first += kPageRows) {
    const int64_t rows = std::min(kPageRows, c.size() - first);
    const PageSlice s = slice_levels(c, first, std::max<int64_t>(rows, 0));
    std::string body;
    if (is_list) append_levels(&body, s.reps, 1);
    append_levels(&body, s.defs, is_list ? 3 : 1);
    PageHeader h;
    h.type = kDataPage;
    h.num_values = static_cast<int32_t>(s.defs.size());
    if (use_dict) {
      std::vector<uint32_t> idx;
      for (int64_t r : s.value_rows) idx.push_back(dict.at(values.value<std::string_view>(r)));
      int width = 1;
      while (width < 32 && (uint64_t{1} << width) < dict.size()) ++width;
      body.push_back(static_cast<char>(width));
      encode_rle(idx, width, &body);
      h.encoding = kRleDictionary;
    } else {
      append_plain(&body, values, s.value_rows);
      h.encoding = kPlain;
    }
    const int64_t at = w.page(h, body);
    if (first_page) m.data_page_offset = at;
    first_page = false;
    m.num_values += h.num_values;
  }
  m.encodings = use_dict ? std::vector<int32_t>{kPlain, kRle, kRleDictionary}
                         : std::vector<int32_t>{kPlain, kRle};
  m.total_compressed_size = base + static_cast<int64_t>(out->size()) - start;
  m.total_uncompressed_size = w.uncompressed_total;
  return m;
}

}  // namespace

struct ParquetWriter::Footer {
  FileMetaData meta;
};

void check_parquet_schema(const Schema& schema) {
  for (const Field& f : schema.fields()) {
    const DataType& t = f.type.is_list() ? f.type.element() : f.type;
    if (t.is_list())
      throw InvalidArgument("Parquet output cannot hold column '" + f.name + "' of type " +
                            f.type.to_string() + " (lists of lists); explode() or cast it first");
    leaf_element(t, f.name);  // throws for the Null type
  }
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
    if (!f.type.is_list()) {
      m.schema.push_back(leaf_element(f.type, f.name));
      continue;
    }
    SchemaElement group;
    group.name = f.name;
    group.repetition = kOptional;
    group.num_children = 1;
    group.converted = kList;
    group.logical.kind = Logical::kList;
    SchemaElement rep;
    rep.name = "list";
    rep.repetition = kRepeated;
    rep.num_children = 1;
    m.schema.push_back(group);
    m.schema.push_back(rep);
    m.schema.push_back(leaf_element(f.type.element(), "element"));
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
  std::string out;
  const int32_t codec = codec_of(options_.compression);
  try {
    for (int c = 0; c < schema_.num_fields(); ++c) {
      const Column col = Column::concat(pending_[size_t(c)]);
      pending_[size_t(c)].clear();
      g.columns.push_back(write_chunk(col, schema_.field(c).name, codec, &out, offset_));
      g.total_byte_size += g.columns.back().total_uncompressed_size;
    }
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const Error*>(&e)) throw;
    throw IoError(file_.temp_path() + ": " + e.what());
  }
  file_.write(out);
  offset_ += static_cast<int64_t>(out.size());
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
