// Column chunks: a primitive column's pages are cut straight from its rows (no level walk);
// a nested leaf's precomputed levels are cut at row starts.
#include "io/parquet/parquet_chunk_writer.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include "io/parquet/parquet_codecs.h"
#include "io/parquet/parquet_encodings.h"

namespace ember::parquet {

namespace {

constexpr int64_t kPageRows = 64 * 1024;
// A nested page also ends at the first row start past this many level entries, so that rows of
// long lists do not make one huge page.
constexpr size_t kPageLevels = size_t{1} << 20;

// PLAIN bytes of one value, for statistics and dictionary keys.
std::string plain_value(const Column& c, int64_t i) {
  const int w = c.type().byte_width();
  if (w > 0)
    return std::string(
        reinterpret_cast<const char*>(c.values_buffer()->data()) + (c.offset() + i) * w, size_t(w));
  if (c.type().id() == TypeId::Boolean) return std::string(1, c.value<bool>(i) ? '\1' : '\0');
  return std::string(c.value<std::string_view>(i));
}

// Calls f(row) for each row of `in.values` holding a non-null value, in order, until f returns
// false.
template <class F>
void for_each_value(const ChunkInput& in, F&& f) {
  if (in.levels) {
    for (const int64_t r : in.levels->value_rows)
      if (!f(r)) return;
    return;
  }
  for (int64_t i = 0; i < in.values.size(); ++i)
    if (!in.values.is_null(i) && !f(i)) return;
}

// One page's worth of a leaf: its levels and the rows of `values` holding its values.
struct PageSlice {
  std::vector<uint32_t> defs, reps;
  std::vector<int64_t> value_rows;
};

// A primitive column's page: definition level 1 for a value, 0 for a null.
void flat_page(const Column& c, int64_t first, int64_t rows, PageSlice* s) {
  s->defs.clear(), s->value_rows.clear();
  for (int64_t i = first; i < first + rows; ++i) {
    const bool v = !c.is_null(i);
    s->defs.push_back(v ? 1 : 0);
    if (v) s->value_rows.push_back(i);
  }
}

// Cuts a chunk into pages of at most kPageRows rows; a chunk of no rows is one empty page.
class PageCutter {
 public:
  explicit PageCutter(const ChunkInput& in) : in_(in) {}

  /// Fills `*s` with the next page; false after the last.
  bool next(PageSlice* s) {
    if (started_ && done()) return false;
    started_ = true;
    if (!in_.levels) {
      flat_page(in_.values, row_, std::min(kPageRows, in_.values.size() - row_), s);
      row_ += kPageRows;
      return true;
    }
    const LeafLevels& l = *in_.levels;
    size_t end = level_;
    for (int64_t rows = 0; end < l.defs.size(); ++end) {
      if (!l.reps.empty() && l.reps[end] != 0) continue;  // inside a row
      if (rows == kPageRows || end - level_ >= kPageLevels) break;
      ++rows;
    }
    const auto first = l.defs.begin() + std::ptrdiff_t(level_), last = first + (end - level_);
    s->defs.assign(first, last);
    const auto values = std::count(first, last, uint32_t(in_.leaf.max_def));
    if (!l.reps.empty())
      s->reps.assign(l.reps.begin() + std::ptrdiff_t(level_), l.reps.begin() + std::ptrdiff_t(end));
    const auto v = l.value_rows.begin() + std::ptrdiff_t(value_);
    s->value_rows.assign(v, v + values);
    level_ = end;
    value_ += size_t(values);
    return true;
  }

 private:
  bool done() const {
    return in_.levels ? level_ >= in_.levels->defs.size() : row_ >= in_.values.size();
  }

  const ChunkInput& in_;
  bool started_ = false;
  int64_t row_ = 0;               // primitive column: the next page's first row
  size_t level_ = 0, value_ = 0;  // nested leaf: the next page's first level and value
};

// RLE levels with their 4-byte length, in as many bits as `max` needs.
void append_levels(std::string* out, const std::vector<uint32_t>& levels, int max) {
  int width = 0;
  while ((1 << width) <= max) ++width;
  std::string rle;
  encode_rle(levels, width, &rle);
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

struct PageWriter {
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

// The distinct strings of a utf8 leaf, each with the row of its first occurrence.
struct Dictionary {
  std::unordered_map<std::string_view, uint32_t> index;
  std::vector<int64_t> rows;
};

// A dictionary for a utf8 leaf with few distinct values (at most 4096, and at most a quarter
// of its slots give or take 64); nullopt for the others.
std::optional<Dictionary> dictionary_of(const ChunkInput& in) {
  if (in.values.type().id() != TypeId::Utf8) return std::nullopt;
  const int64_t slots = in.levels ? int64_t(in.levels->value_rows.size()) : in.values.size();
  Dictionary d;
  bool fits = true;
  for_each_value(in, [&](int64_t i) {
    auto [it, added] =
        d.index.emplace(in.values.value<std::string_view>(i), static_cast<uint32_t>(d.rows.size()));
    if (added) d.rows.push_back(i);
    fits = d.rows.size() <= 4096 && static_cast<int64_t>(d.rows.size()) * 4 <= slots + 64;
    return fits;
  });
  if (!fits) return std::nullopt;
  return d;
}

// The rows of the least and the greatest value that `get` reads from the rows of `in`; NaN
// is left out, as the format asks.
template <class Get>
void min_max_rows(const ChunkInput& in, Get get, std::optional<int64_t>* lo,
                  std::optional<int64_t>* hi) {
  using T = decltype(get(int64_t{0}));
  T min{}, max{};
  for_each_value(in, [&](int64_t i) {
    const T x = get(i);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x)) return true;
    }
    if (!*lo || x < min) *lo = i, min = x;
    if (!*hi || max < x) *hi = i, max = x;
    return true;
  });
}

// Min/max (none for binary) and the null count; the type is looked at once, not per value.
Statistics statistics_of(const ChunkInput& in) {
  const Column& v = in.values;
  std::optional<int64_t> lo, hi;
  switch (v.type().id()) {
    case TypeId::Boolean:
      min_max_rows(
          in, [&](int64_t i) { return v.value<bool>(i); }, &lo, &hi);
      break;
    case TypeId::Int32:
    case TypeId::Date32:
      min_max_rows(
          in, [p = v.values<int32_t>()](int64_t i) { return p[i]; }, &lo, &hi);
      break;
    case TypeId::Int64:
    case TypeId::Timestamp:
      min_max_rows(
          in, [p = v.values<int64_t>()](int64_t i) { return p[i]; }, &lo, &hi);
      break;
    case TypeId::Float32:
      min_max_rows(
          in, [p = v.values<float>()](int64_t i) { return p[i]; }, &lo, &hi);
      break;
    case TypeId::Float64:
      min_max_rows(
          in, [p = v.values<double>()](int64_t i) { return p[i]; }, &lo, &hi);
      break;
    case TypeId::Utf8:  // unsigned byte order, as std::string_view compares
      min_max_rows(
          in, [&](int64_t i) { return v.value<std::string_view>(i); }, &lo, &hi);
      break;
    default:
      break;
  }
  Statistics s;
  s.null_count =
      in.levels ? int64_t(in.levels->defs.size() - in.levels->value_rows.size()) : v.null_count();
  if (lo) {
    s.min = plain_value(v, *lo);
    s.max = plain_value(v, *hi);
  }
  return s;
}

// A v1 data page: repetition levels (when the leaf is repeated), definition levels, values.
int64_t write_data_page(PageWriter& w, const ChunkInput& in, const PageSlice& s,
                        const Dictionary* dict) {
  std::string body;
  if (in.leaf.max_rep > 0) append_levels(&body, s.reps, in.leaf.max_rep);
  append_levels(&body, s.defs, in.leaf.max_def);
  PageHeader h;
  h.type = kDataPage;
  h.num_values = static_cast<int32_t>(s.defs.size());
  if (dict) {
    std::vector<uint32_t> idx;
    idx.reserve(s.value_rows.size());
    for (int64_t r : s.value_rows)
      idx.push_back(dict->index.at(in.values.value<std::string_view>(r)));
    int width = 1;
    while (width < 32 && (uint64_t{1} << width) < dict->rows.size()) ++width;
    body.push_back(static_cast<char>(width));
    encode_rle(idx, width, &body);
    h.encoding = kRleDictionary;
  } else {
    append_plain(&body, in.values, s.value_rows);
    h.encoding = kPlain;
  }
  return w.page(h, body);
}

}  // namespace

ColumnMeta write_column_chunk(const ChunkInput& in, int32_t codec, std::string* out, int64_t base) {
  ColumnMeta m;
  m.type = *in.leaf.element.type;
  m.codec = codec;
  m.path = in.leaf.path;
  PageWriter w{codec, out, base};
  const int64_t start = base + static_cast<int64_t>(out->size());

  const std::optional<Dictionary> dict = dictionary_of(in);
  if (dict) {
    std::string body;
    append_plain(&body, in.values, dict->rows);
    PageHeader h;
    h.type = kDictionaryPage;
    h.num_values = static_cast<int32_t>(dict->rows.size());
    h.encoding = kPlain;
    m.dictionary_page_offset = w.page(h, body);
  }
  m.stats = statistics_of(in);

  PageCutter pages(in);
  PageSlice s;
  for (bool first = true; pages.next(&s); first = false) {
    const int64_t at = write_data_page(w, in, s, dict ? &*dict : nullptr);
    if (first) m.data_page_offset = at;
    m.num_values += static_cast<int64_t>(s.defs.size());
  }
  m.encodings = dict ? std::vector<int32_t>{kPlain, kRle, kRleDictionary}
                     : std::vector<int32_t>{kPlain, kRle};
  m.total_compressed_size = base + static_cast<int64_t>(out->size()) - start;
  m.total_uncompressed_size = w.uncompressed_total;
  return m;
}

}  // namespace ember::parquet
