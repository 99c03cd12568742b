// Column chunks: a primitive column's pages are cut straight from its rows (no level walk);
// a nested leaf's precomputed levels are cut at row starts.
#include "io/parquet/parquet_chunk_writer.h"

#include <algorithm>
#include <cmath>
#include <functional>
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
// A page also ends at the first row start once its values hold this many bytes (as Arrow's
// 1 MiB data page size): 64K rows of 512-byte images would make a 32 MiB page, built, compressed
// and read back in buffers far past the CPU's caches.
constexpr int64_t kPageBytes = int64_t{1} << 20;

// Bytes of the value in row `r` of `c` (a string's length, or the type's width).
int64_t value_bytes(const Column& c, int width, int64_t r) {
  return width > 0 ? width : static_cast<int64_t>(c.value<std::string_view>(r).size()) + 4;
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

// Calls f(row) for each row of `part.values` holding a non-null value, in order, until f
// returns false; false if f did.
template <class F>
bool for_each_value(const ChunkPart& part, F&& f) {
  if (part.levels) {
    for (const int64_t r : part.levels->value_rows)
      if (!f(r)) return false;
    return true;
  }
  for (int64_t i = 0; i < part.values->size(); ++i)
    if (!part.values->is_null(i) && !f(i)) return false;
  return true;
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
  PageCutter(const WriteLeaf& leaf, const ChunkPart& part) : leaf_(leaf), in_(part) {}

  /// Fills `*s` with the next page; false after the last.
  bool next(PageSlice* s) {
    if (started_ && done()) return false;
    started_ = true;
    const Column& v = *in_.values;
    const int width = v.type().id() == TypeId::Boolean ? 1 : v.type().byte_width();
    if (!in_.levels) {
      int64_t rows = std::min(kPageRows, v.size() - row_);
      if (width > 0) {
        rows = std::min(rows, std::max<int64_t>(1, kPageBytes / width));
      } else {
        int64_t bytes = 0, k = 0;
        while (k < rows && bytes < kPageBytes) {
          if (!v.is_null(row_ + k)) bytes += value_bytes(v, width, row_ + k);
          ++k;
        }
        rows = k;
      }
      flat_page(v, row_, rows, s);
      row_ += std::max<int64_t>(rows, 1);
      return true;
    }
    const LeafLevels& l = *in_.levels;
    const auto max_def = uint32_t(leaf_.max_def);
    size_t end = level_, value = value_;
    int64_t bytes = 0;
    for (int64_t rows = 0; end < l.defs.size(); ++end) {
      if (l.reps.empty() || l.reps[end] == 0) {  // a row starts here
        if (rows == kPageRows || end - level_ >= kPageLevels || bytes >= kPageBytes) break;
        ++rows;
      }
      if (l.defs[end] == max_def) bytes += value_bytes(v, width, l.value_rows[value++]);
    }
    const auto first = l.defs.begin() + std::ptrdiff_t(level_), last = first + (end - level_);
    s->defs.assign(first, last);
    const size_t values = value - value_;  // counted by the loop above
    if (!l.reps.empty())
      s->reps.assign(l.reps.begin() + std::ptrdiff_t(level_), l.reps.begin() + std::ptrdiff_t(end));
    const auto first_value = l.value_rows.begin() + std::ptrdiff_t(value_);
    s->value_rows.assign(first_value, first_value + values);
    level_ = end;
    value_ = value;
    return true;
  }

 private:
  bool done() const {
    return in_.levels ? level_ >= in_.levels->defs.size() : row_ >= in_.values->size();
  }

  const WriteLeaf& leaf_;
  const ChunkPart& in_;
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

// Past this many pending bytes a chunk's pages go to the file before the chunk ends.
constexpr size_t kFlushBytes = size_t{4} << 20;

struct PageWriter {
  int32_t codec;
  std::string* out;                                    ///< the file's pending bytes
  int64_t base;                                        ///< file offset of out->data()
  const std::function<void(std::string_view)>* flush;  ///< null: `out` keeps every page
  int64_t uncompressed_total = 0;

  std::string body;        ///< the page being built, reused from page to page
  std::string compressed;  ///< likewise

  int64_t page(PageHeader h, const std::string& body) {
    compress_into(codec, body, &compressed);
    h.uncompressed_size = static_cast<int32_t>(body.size());
    h.compressed_size = static_cast<int32_t>(compressed.size());
    const int64_t at = base + static_cast<int64_t>(out->size());
    const std::string header = write_page_header(h);
    out->append(header);
    out->append(compressed);
    uncompressed_total += static_cast<int64_t>(header.size() + body.size());
    if (flush && out->size() >= kFlushBytes) {
      (*flush)(*out);
      base += static_cast<int64_t>(out->size());
      out->clear();
    }
    return at;
  }
};

// The distinct strings of a utf8 leaf, in the order they first occur (views into the parts).
struct Dictionary {
  std::unordered_map<std::string_view, uint32_t> index;
  std::vector<std::string_view> values;
};

// A dictionary for a utf8 leaf with few distinct values (at most 4096, and at most a quarter
// of its slots give or take 64); nullopt for the others.
std::optional<Dictionary> dictionary_of(const ChunkInput& in) {
  if (in.parts.empty() || in.parts[0].values->type().id() != TypeId::Utf8) return std::nullopt;
  int64_t slots = 0;
  for (const ChunkPart& part : in.parts)
    slots += part.levels ? int64_t(part.levels->value_rows.size()) : part.values->size();
  Dictionary d;
  for (const ChunkPart& part : in.parts) {
    const bool fits = for_each_value(part, [&](int64_t i) {
      const auto v = part.values->value<std::string_view>(i);
      if (d.index.emplace(v, static_cast<uint32_t>(d.values.size())).second) d.values.push_back(v);
      return d.values.size() <= 4096 && static_cast<int64_t>(d.values.size()) * 4 <= slots + 64;
    });
    if (!fits) return std::nullopt;
  }
  return d;
}

// Where the least and the greatest value lie (part, row), by what `get_of(column)(row)` reads
// from every part; NaN is left out, as the format asks.
using At = std::pair<size_t, int64_t>;
template <class GetOf>
void min_max(const ChunkInput& in, GetOf get_of, std::optional<At>* lo, std::optional<At>* hi) {
  using T = decltype(get_of(*in.parts[0].values)(int64_t{0}));
  T min{}, max{};
  for (size_t p = 0; p < in.parts.size(); ++p) {
    const auto get = get_of(*in.parts[p].values);
    for_each_value(in.parts[p], [&](int64_t i) {
      const T x = get(i);
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(x)) return true;
      }
      if (!*lo || x < min) *lo = At{p, i}, min = x;
      if (!*hi || max < x) *hi = At{p, i}, max = x;
      return true;
    });
  }
}

// A reader of a fixed-width column's values as T.
template <class T>
auto fixed_of(const Column& c) {
  return [p = c.values<T>()](int64_t i) { return p[i]; };
}

// Min/max (none for binary) and the null count; the type is looked at once, not per value.
Statistics statistics_of(const ChunkInput& in) {
  std::optional<At> lo, hi;
  Statistics s;
  int64_t nulls = 0;
  if (in.parts.empty()) return s;
  switch (in.parts[0].values->type().id()) {
    case TypeId::Boolean:
      min_max(
          in, [](const Column& c) { return [&c](int64_t i) { return c.value<bool>(i); }; }, &lo,
          &hi);
      break;
    case TypeId::Int32:
    case TypeId::Date32:
      min_max(in, fixed_of<int32_t>, &lo, &hi);
      break;
    case TypeId::Int64:
    case TypeId::Timestamp:
      min_max(in, fixed_of<int64_t>, &lo, &hi);
      break;
    case TypeId::Float32:
      min_max(in, fixed_of<float>, &lo, &hi);
      break;
    case TypeId::Float64:
      min_max(in, fixed_of<double>, &lo, &hi);
      break;
    case TypeId::Utf8:  // unsigned byte order, as std::string_view compares
      min_max(
          in,
          [](const Column& c) { return [&c](int64_t i) { return c.value<std::string_view>(i); }; },
          &lo, &hi);
      break;
    default:
      break;
  }
  for (const ChunkPart& part : in.parts)
    nulls += part.levels ? int64_t(part.levels->defs.size() - part.levels->value_rows.size())
                         : part.values->null_count();
  s.null_count = nulls;
  if (lo) {
    s.min = plain_value(*in.parts[lo->first].values, lo->second);
    s.max = plain_value(*in.parts[hi->first].values, hi->second);
  }
  return s;
}

// A v1 data page: repetition levels (when the leaf is repeated), definition levels, values.
int64_t write_data_page(PageWriter& w, const WriteLeaf& leaf, const Column& values,
                        const PageSlice& s, const Dictionary* dict) {
  std::string& body = w.body;
  body.clear();
  if (leaf.max_rep > 0) append_levels(&body, s.reps, leaf.max_rep);
  append_levels(&body, s.defs, leaf.max_def);
  PageHeader h;
  h.type = kDataPage;
  h.num_values = static_cast<int32_t>(s.defs.size());
  if (dict) {
    std::vector<uint32_t> idx;
    idx.reserve(s.value_rows.size());
    for (int64_t r : s.value_rows) idx.push_back(dict->index.at(values.value<std::string_view>(r)));
    int width = 1;
    while (width < 32 && (uint64_t{1} << width) < dict->values.size()) ++width;
    body.push_back(static_cast<char>(width));
    encode_rle(idx, width, &body);
    h.encoding = kRleDictionary;
  } else {
    append_plain(&body, values, s.value_rows);
    h.encoding = kPlain;
  }
  return w.page(h, body);
}

}  // namespace

ColumnMeta write_column_chunk(const ChunkInput& in, int32_t codec, std::string* out, int64_t base,
                              const std::function<void(std::string_view)>& flush) {
  ColumnMeta m;
  m.type = *in.leaf.element.type;
  m.codec = codec;
  m.path = in.leaf.path;
  PageWriter w{codec, out, base, flush ? &flush : nullptr, 0, {}, {}};
  const int64_t start = base + static_cast<int64_t>(out->size());

  const std::optional<Dictionary> dict = dictionary_of(in);
  if (dict) {
    std::string body;
    for (const std::string_view v : dict->values) {
      const auto n = static_cast<uint32_t>(v.size());
      body.append(reinterpret_cast<const char*>(&n), 4);
      body.append(v);
    }
    PageHeader h;
    h.type = kDictionaryPage;
    h.num_values = static_cast<int32_t>(dict->values.size());
    h.encoding = kPlain;
    m.dictionary_page_offset = w.page(h, body);
  }
  m.stats = statistics_of(in);

  if (in.parts.empty()) throw std::runtime_error("internal: a column chunk of no parts");
  PageSlice s;
  bool first = true;
  for (const ChunkPart& part : in.parts) {
    PageCutter pages(in.leaf, part);
    for (; pages.next(&s); first = false) {
      const int64_t at = write_data_page(w, in.leaf, *part.values, s, dict ? &*dict : nullptr);
      if (first) m.data_page_offset = at;
      m.num_values += static_cast<int64_t>(s.defs.size());
    }
  }
  m.encodings = dict ? std::vector<int32_t>{kPlain, kRle, kRleDictionary}
                     : std::vector<int32_t>{kPlain, kRle};
  m.total_compressed_size = w.base + static_cast<int64_t>(out->size()) - start;
  m.total_uncompressed_size = w.uncompressed_total;
  return m;
}

}  // namespace ember::parquet
