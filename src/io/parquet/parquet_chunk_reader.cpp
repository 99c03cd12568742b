// Page by page: header, decompression, levels, then values (plain, dictionary or delta).
#include "io/parquet/parquet_chunk_reader.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "core/scratch_room.h"
#include "io/parquet/parquet_codecs.h"

namespace ember::parquet {

namespace {

constexpr int32_t kMaxPageBytes = 512 << 20;
constexpr int32_t kMaxPageValues = 64 << 20;

int bit_width_of(int max_level) {
  return max_level == 0 ? 0 : std::bit_width(static_cast<unsigned>(max_level));
}

int fixed_width(const SchemaElement& e) {
  switch (*e.type) {
    case kBoolean:
      return 1;
    case kInt32:
    case kFloat:
      return 4;
    case kInt64:
    case kDouble:
      return 8;
    case kInt96:
      return 12;
    default:
      return 0;
  }
}

std::string encoding_name(int32_t e) {
  switch (e) {
    case kPlain:
      return "PLAIN";
    case kPlainDictionary:
      return "PLAIN_DICTIONARY";
    case kRle:
      return "RLE";
    case kBitPacked:
      return "BIT_PACKED";
    case kDeltaBinaryPacked:
      return "DELTA_BINARY_PACKED";
    case kDeltaLengthByteArray:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case kDeltaByteArray:
      return "DELTA_BYTE_ARRAY";
    case kRleDictionary:
      return "RLE_DICTIONARY";
    case kByteStreamSplit:
      return "BYTE_STREAM_SPLIT";
    default:
      return "encoding " + std::to_string(e);
  }
}

/// A thread's page buffer and level/index scratch, kept from chunk to chunk: pages and chunks
/// come one after another on a thread, and fresh buffers for each cost a page fault per 4 KiB.
struct ScratchSpace {
  ScratchRoom<char> page;
  ScratchRoom<uint32_t> ints;
};

ScratchSpace& scratch_space() {
  thread_local ScratchSpace space;
  return space;
}

/// Past these a thread does not keep its buffers once its chunk is decoded (a usual page is
/// about 1 MiB and holds ~100K values; some writers make pages of tens of MiB).
constexpr size_t kKeptPageBytes = 64 << 20;
constexpr size_t kKeptInts = 4 << 20;

class ChunkDecoder {
 public:
  ChunkDecoder(const ColumnMeta& meta, const LeafColumn& leaf, bool flat)
      : meta_(meta), leaf_(leaf), may_elide_(flat && leaf.max_rep == 0 && leaf.max_def > 0) {
    out_.width = fixed_width(leaf.element);
    out_.is_arrays = out_.width == 0;
    fixed_len_ = leaf.element.type_length;
    if (*leaf.element.type == kFixedLenByteArray && fixed_len_ <= 0)
      throw std::runtime_error("FIXED_LEN_BYTE_ARRAY without a length");
  }

  ChunkData run(std::string_view bytes) {
    reserve_values(bytes.size());
    size_t pos = 0;
    while (out_.num_values < meta_.num_values) {
      if (pos >= bytes.size()) throw std::runtime_error("column chunk ends before its values");
      size_t header_bytes = 0;
      const PageHeader h = read_page_header(reinterpret_cast<const uint8_t*>(bytes.data()) + pos,
                                            bytes.size() - pos, &header_bytes);
      pos += header_bytes;
      if (h.compressed_size < 0 || h.uncompressed_size < 0 ||
          static_cast<size_t>(h.compressed_size) > bytes.size() - pos)
        throw std::runtime_error("page runs past the column chunk");
      // Pages are at most a few MiB in practice: a header claiming more is corrupt, and is
      // refused before anything that large is allocated.
      if (h.uncompressed_size > kMaxPageBytes || h.num_values > kMaxPageValues ||
          h.num_values > meta_.num_values - out_.num_values)
        throw std::runtime_error("page header claims " + std::to_string(h.num_values) +
                                 " values in " + std::to_string(h.uncompressed_size) + " bytes");
      const std::string_view body = bytes.substr(pos, static_cast<size_t>(h.compressed_size));
      pos += static_cast<size_t>(h.compressed_size);
      switch (h.type) {
        case kDictionaryPage:
          dictionary(h, page(body, static_cast<size_t>(h.uncompressed_size)));
          break;
        case kDataPage:
          data_v1(h, page(body, static_cast<size_t>(h.uncompressed_size)));
          break;
        case kDataPageV2:
          data_v2(h, body);
          break;
        default:
          break;  // index pages carry nothing ember needs
      }
    }
    if (elided_ > 0) out_.all_defined = true;  // defs stayed empty: no page had a null
    return std::move(out_);
  }

 private:
  /// A page's bytes uncompressed: `body` itself when the chunk is not compressed, else in this
  /// thread's page buffer (valid until the next call).
  std::string_view page(std::string_view body, size_t size) {
    if (meta_.codec == kUncompressed) {
      if (body.size() != size) throw std::runtime_error("page size mismatch");
      return body;
    }
    char* into = scratch_space().page.room(size);
    decompress_into(meta_.codec, body, into, size);
    return {into, size};
  }

  void dictionary(const PageHeader& h, std::string_view page) {
    if (h.encoding != kPlain && h.encoding != kPlainDictionary)
      throw std::runtime_error("dictionary page in " + encoding_name(h.encoding));
    if (h.num_values < 0) throw std::runtime_error("negative dictionary size");
    dict_fixed_ = ByteStore();
    dict_arrays_ = ByteArrays();
    const auto* p = reinterpret_cast<const uint8_t*>(page.data());
    plain(p, p + page.size(), h.num_values, &dict_fixed_, &dict_arrays_);
    has_dict_ = true;
  }

  // Levels of one page: RLE (v1 with a 4-byte length prefix unless `size` is given). A v2 page
  // may give bytes for levels the column does not have (max 0): they are skipped.
  void levels(const uint8_t** p, const uint8_t* end, int max, int64_t n, std::vector<int16_t>* out,
              int64_t given_size) {
    if (max == 0) {
      if (given_size > 0) {
        if (given_size > end - *p) throw std::runtime_error("level data past its page");
        *p += given_size;
      }
      return;
    }
    uint64_t size;
    if (given_size >= 0) {
      size = static_cast<uint64_t>(given_size);
    } else {
      if (end - *p < 4) throw std::runtime_error("level data ends early");
      uint32_t s;
      std::memcpy(&s, *p, 4);
      *p += 4;
      size = s;
    }
    if (size > static_cast<uint64_t>(end - *p))
      throw std::runtime_error("level data past its page");
    if (out == &out_.defs && may_elide_ && out->empty()) {
      // A flat leaf's pages without nulls (one run of the maximum) are only counted, until
      // a page has one; then those counted are written out before it.
      if (one_run_of(*p, size, max, n)) {
        elided_ += n;
        *p += size;
        return;
      }
      out->assign(static_cast<size_t>(elided_), static_cast<int16_t>(max));
      elided_ = 0;
    }
    uint32_t* v = scratch(n);
    decode_rle(*p, size, bit_width_of(max), n, v);
    const size_t base = out->size();
    out->resize(base + static_cast<size_t>(n));
    int16_t* to = out->data() + base;
    uint32_t highest = 0;
    for (int64_t i = 0; i < n; ++i) {
      highest = std::max(highest, v[i]);
      to[i] = static_cast<int16_t>(v[i]);
    }
    if (highest > static_cast<uint32_t>(max)) throw std::runtime_error("level above its maximum");
    *p += size;
  }

  /// Whether levels [p, p + size) hold one RLE run of `value` covering `n` levels.
  static bool one_run_of(const uint8_t* p, uint64_t size, int value, int64_t n) {
    const uint8_t* end = p + size;
    uint64_t header = 0;
    for (int shift = 0;; shift += 7) {
      if (p >= end || shift > 56) return false;
      const uint8_t b = *p++;
      header |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    if ((header & 1) != 0 || (header >> 1) < static_cast<uint64_t>(n)) return false;
    const int width = bit_width_of(value);
    uint32_t v = 0;
    for (int b = 0; b < (width + 7) / 8; ++b) {
      if (p >= end) return false;
      v |= uint32_t(*p++) << (8 * b);
    }
    return v == static_cast<uint32_t>(value);
  }

  int64_t present_in_page(int64_t n, size_t first_def) const {
    if (leaf_.max_def == 0) return n;
    if (out_.defs.size() == first_def) return n;  // its levels were elided: no nulls
    // The page's own levels are the last n (counted ones may have been written before them).
    int64_t k = 0;
    for (size_t i = out_.defs.size() - size_t(n); i < out_.defs.size(); ++i)
      k += out_.defs[i] == leaf_.max_def;
    return k;
  }

  void data_v1(const PageHeader& h, std::string_view page) {
    if (h.num_values < 0) throw std::runtime_error("negative value count");
    const auto* p = reinterpret_cast<const uint8_t*>(page.data());
    const uint8_t* end = p + page.size();
    const size_t first_def = out_.defs.size();
    levels(&p, end, leaf_.max_rep, h.num_values, &out_.reps, -1);
    levels(&p, end, leaf_.max_def, h.num_values, &out_.defs, -1);
    values(h.encoding, p, end, present_in_page(h.num_values, first_def));
    out_.num_values += h.num_values;
  }

  void data_v2(const PageHeader& h, std::string_view body) {
    if (h.num_values < 0 || h.def_levels_bytes < 0 || h.rep_levels_bytes < 0 ||
        static_cast<size_t>(h.def_levels_bytes) + static_cast<size_t>(h.rep_levels_bytes) >
            body.size())
      throw std::runtime_error("page levels run past the page");
    const auto* p = reinterpret_cast<const uint8_t*>(body.data());
    const uint8_t* end = p + body.size();
    const size_t first_def = out_.defs.size();
    levels(&p, end, leaf_.max_rep, h.num_values, &out_.reps, h.rep_levels_bytes);
    levels(&p, end, leaf_.max_def, h.num_values, &out_.defs, h.def_levels_bytes);
    const size_t level_bytes = static_cast<size_t>(h.def_levels_bytes + h.rep_levels_bytes);
    const std::string_view rest = body.substr(level_bytes);
    const int64_t uncompressed = int64_t{h.uncompressed_size} - static_cast<int64_t>(level_bytes);
    if (uncompressed < 0) throw std::runtime_error("page sizes disagree");
    if (!h.is_compressed && rest.size() != static_cast<size_t>(uncompressed))
      throw std::runtime_error("page size mismatch");
    const std::string_view values_bytes =
        h.is_compressed ? page(rest, static_cast<size_t>(uncompressed)) : rest;
    const auto* v = reinterpret_cast<const uint8_t*>(values_bytes.data());
    values(h.encoding, v, v + values_bytes.size(), present_in_page(h.num_values, first_def));
    out_.num_values += h.num_values;
  }

  // Room for the chunk's values up front, so that they are not copied each time they outgrow
  // their buffer: the chunk's uncompressed size bounds its PLAIN values (dictionary-encoded
  // ones may grow past it, then the buffer grows as before). The footer's figures are only
  // trusted up to what the chunk's bytes could plausibly expand to.
  void reserve_values(size_t chunk_bytes) {
    const int64_t cap = std::min<int64_t>(int64_t{1} << 30, int64_t(chunk_bytes) * 32 + 4096);
    const int64_t values = std::clamp<int64_t>(meta_.num_values, 0, cap / 4);
    if (leaf_.max_def > 0) out_.defs.reserve(size_t(values));
    if (leaf_.max_rep > 0) out_.reps.reserve(size_t(values));
    if (out_.is_arrays) {
      // PLAIN byte arrays: the values without their 4-byte lengths.
      const int64_t plain = meta_.total_uncompressed_size - 4 * values;
      out_.arrays.bytes.reserve(size_t(std::clamp<int64_t>(plain, 0, cap)));
      out_.arrays.offsets.reserve(size_t(values) + 1);
    } else {
      out_.fixed.reserve(size_t(std::min<int64_t>(values * std::max(out_.width, 1), cap)));
    }
  }

  // PLAIN values into `fixed` or `arrays`.
  void plain(const uint8_t* p, const uint8_t* end, int64_t n, ByteStore* fixed,
             ByteArrays* arrays) {
    const int32_t type = *leaf_.element.type;
    if (type == kBoolean) {
      if (static_cast<uint64_t>(n + 7) / 8 > static_cast<uint64_t>(end - p))
        throw std::runtime_error("PLAIN booleans past their page");
      char* to = fixed->grow(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) to[i] = static_cast<char>((p[i >> 3] >> (i & 7)) & 1);
      return;
    }
    if (out_.width > 0) {
      const uint64_t bytes = static_cast<uint64_t>(n) * static_cast<uint64_t>(out_.width);
      if (bytes > static_cast<uint64_t>(end - p))
        throw std::runtime_error("PLAIN values past their page");
      fixed->append(reinterpret_cast<const char*>(p), bytes);
      return;
    }
    if (type != kFixedLenByteArray && plain_byte_arrays(p, end, n, arrays)) return;
    // FIXED_LEN_BYTE_ARRAY, or a page whose strings could take a chunk past 2 GiB of bytes:
    // value by value, each checked as it is added.
    for (int64_t i = 0; i < n; ++i) {
      uint32_t len;
      if (type == kFixedLenByteArray) {
        len = static_cast<uint32_t>(fixed_len_);
      } else {
        if (end - p < 4) throw std::runtime_error("PLAIN byte array past its page");
        std::memcpy(&len, p, 4);
        p += 4;
      }
      if (len > static_cast<uint64_t>(end - p))
        throw std::runtime_error("PLAIN byte array past its page");
      arrays->add(reinterpret_cast<const char*>(p), len);
      p += len;
    }
  }

  // PLAIN byte arrays (a 4-byte length, then the bytes): their bytes are fewer than the page's,
  // so room for all of them is taken once and each value copied with no check but its bounds.
  // False, doing nothing, when that room could take the chunk past 2 GiB of bytes.
  static bool plain_byte_arrays(const uint8_t* p, const uint8_t* end, int64_t n,
                                ByteArrays* arrays) {
    // Each value has a 4-byte length before it: the bytes are at most the page's less those.
    if (static_cast<uint64_t>(end - p) < 4 * static_cast<uint64_t>(n))
      throw std::runtime_error("PLAIN byte array past its page");
    const auto most = static_cast<size_t>(end - p) - 4 * static_cast<size_t>(n);
    if (arrays->bytes.size() + most > 0x7fffffffu) return false;
    char* const start = arrays->bytes.grow(most);
    char* to = start;
    const size_t base = arrays->offsets.size();
    arrays->offsets.resize(base + static_cast<size_t>(n));
    int32_t* offsets = arrays->offsets.data() + base;
    int32_t at = offsets[-1];
    for (int64_t i = 0; i < n; ++i) {
      uint32_t len;  // a corrupt page throws, and the whole chunk is dropped with it
      if (end - p < 4) throw std::runtime_error("PLAIN byte array past its page");
      std::memcpy(&len, p, 4);
      p += 4;
      // The room left is the page's bytes less a length for every value still to come: a
      // value longer than that leaves no room for their lengths, so the page is corrupt.
      if (len > static_cast<uint64_t>(end - p) || len > static_cast<size_t>(start + most - to))
        throw std::runtime_error("PLAIN byte array past its page");
      std::memcpy(to, p, len);
      to += len;
      p += len;
      at += static_cast<int32_t>(len);
      offsets[i] = at;
    }
    arrays->bytes.shrink_by(most - static_cast<size_t>(to - start));
    return true;
  }

  void dictionary_indices(const uint8_t* p, const uint8_t* end, int64_t n) {
    if (!has_dict_) throw std::runtime_error("dictionary-encoded page without a dictionary page");
    if (n == 0) return;
    if (p >= end) throw std::runtime_error("dictionary indices missing");
    const int width = *p++;
    uint32_t* idx = scratch(n);
    decode_rle(p, static_cast<size_t>(end - p), width, n, idx);
    const uint64_t dict_size = out_.is_arrays
                                   ? static_cast<uint64_t>(dict_arrays_.size())
                                   : dict_fixed_.size() / static_cast<uint64_t>(out_.width);
    uint32_t highest = 0;
    for (int64_t i = 0; i < n; ++i) highest = std::max(highest, idx[i]);
    if (n > 0 && highest >= dict_size) throw std::runtime_error("dictionary index out of range");
    if (out_.is_arrays) return gather_arrays(idx, n);
    // Fixed-width values looked up a whole width at a time.
    char* to = out_.fixed.grow(static_cast<size_t>(n) * size_t(out_.width));
    const char* from = dict_fixed_.data();
    switch (out_.width) {
      case 1:
        for (int64_t i = 0; i < n; ++i) to[i] = from[idx[i]];
        return;
      case 4:
        for (int64_t i = 0; i < n; ++i) std::memcpy(to + i * 4, from + size_t(idx[i]) * 4, 4);
        return;
      case 8:
        for (int64_t i = 0; i < n; ++i) std::memcpy(to + i * 8, from + size_t(idx[i]) * 8, 8);
        return;
      default: {
        const auto w = static_cast<size_t>(out_.width);
        for (int64_t i = 0; i < n; ++i) std::memcpy(to + size_t(i) * w, from + idx[i] * w, w);
      }
    }
  }

  /// The dictionary's byte arrays at `idx`: their total size first, so that the bytes are
  /// placed in one pass with no check per value.
  void gather_arrays(const uint32_t* idx, int64_t n) {
    const int32_t* dict_offsets = dict_arrays_.offsets.data();
    uint64_t total = 0;
    for (int64_t i = 0; i < n; ++i)
      total += static_cast<uint32_t>(dict_offsets[idx[i] + 1] - dict_offsets[idx[i]]);
    ByteArrays& out = out_.arrays;
    if (out.bytes.size() + total > 0x7fffffffu)
      throw std::runtime_error("byte arrays past 2 GiB in one page");
    char* to = out.bytes.grow(static_cast<size_t>(total));
    const char* from = dict_arrays_.bytes.data();
    const size_t base = out.offsets.size();
    out.offsets.resize(base + static_cast<size_t>(n));
    int32_t* offsets = out.offsets.data() + base;
    int32_t at = offsets[-1];
    for (int64_t i = 0; i < n; ++i) {
      const int32_t b = dict_offsets[idx[i]];
      const auto len = static_cast<size_t>(dict_offsets[idx[i] + 1] - b);
      std::memcpy(to, from + b, len);
      to += len;
      at += static_cast<int32_t>(len);
      offsets[i] = at;
    }
  }

  /// Room for `n` decoded levels or indices, reused from page to page (not zeroed each time).
  static uint32_t* scratch(int64_t n) { return scratch_space().ints.room(static_cast<size_t>(n)); }

  // BYTE_STREAM_SPLIT of FIXED_LEN_BYTE_ARRAY values (float16, decimals, any width): stream b
  // holds byte b of every value, as for the fixed-width types.
  void byte_stream_split_fixed_len(const uint8_t* p, const uint8_t* end, int64_t n) {
    const auto w = static_cast<size_t>(fixed_len_);
    if (static_cast<uint64_t>(n) * w > static_cast<uint64_t>(end - p))
      throw std::runtime_error("BYTE_STREAM_SPLIT values past their page");
    std::string value(w, '\0');
    for (int64_t i = 0; i < n; ++i) {
      for (size_t b = 0; b < w; ++b) value[b] = static_cast<char>(p[b * size_t(n) + size_t(i)]);
      out_.arrays.add(value.data(), static_cast<uint32_t>(w));
    }
  }

  void values(int32_t encoding, const uint8_t* p, const uint8_t* end, int64_t n) {
    const int32_t type = *leaf_.element.type;
    switch (encoding) {
      case kPlain:
        return plain(p, end, n, &out_.fixed, &out_.arrays);
      case kPlainDictionary:
      case kRleDictionary:
        return dictionary_indices(p, end, n);
      case kRle: {
        if (type != kBoolean) break;
        if (end - p < 4) throw std::runtime_error("RLE booleans end early");
        std::vector<uint32_t> v(static_cast<size_t>(n));
        decode_rle(p + 4, static_cast<size_t>(end - p - 4), 1, n, v.data());
        char* to = out_.fixed.grow(v.size());
        for (size_t i = 0; i < v.size(); ++i) to[i] = static_cast<char>(v[i]);
        return;
      }
      case kDeltaBinaryPacked: {
        if (type != kInt32 && type != kInt64) break;
        std::vector<int64_t> v;
        decode_delta_binary_packed(&p, end, n, &v);
        if (static_cast<int64_t>(v.size()) < n) throw std::runtime_error("too few DELTA values");
        for (int64_t i = 0; i < n; ++i) {
          if (type == kInt32) {
            const int32_t x = static_cast<int32_t>(v[size_t(i)]);
            out_.fixed.append(reinterpret_cast<const char*>(&x), 4);
          } else {
            out_.fixed.append(reinterpret_cast<const char*>(&v[size_t(i)]), 8);
          }
        }
        return;
      }
      case kDeltaLengthByteArray:
        if (!out_.is_arrays) break;
        return decode_delta_length_byte_array(p, end, n, &out_.arrays);
      case kDeltaByteArray:
        if (!out_.is_arrays) break;
        return decode_delta_byte_array(p, end, n, &out_.arrays);
      case kByteStreamSplit: {
        if (type == kFixedLenByteArray) return byte_stream_split_fixed_len(p, end, n);
        if (out_.is_arrays || type == kBoolean) break;
        const size_t w = static_cast<size_t>(out_.width);
        if (static_cast<uint64_t>(n) * w > static_cast<uint64_t>(end - p))
          throw std::runtime_error("BYTE_STREAM_SPLIT values past their page");
        char* to = out_.fixed.grow(static_cast<size_t>(n) * w);
        for (int64_t i = 0; i < n; ++i)
          for (size_t b = 0; b < w; ++b)
            to[size_t(i) * w + b] = static_cast<char>(p[b * size_t(n) + size_t(i)]);
        return;
      }
      default:
        break;
    }
    throw std::runtime_error("unsupported encoding " + encoding_name(encoding));
  }

  const ColumnMeta& meta_;
  const LeafColumn& leaf_;
  const bool may_elide_;  ///< a flat leaf's definition levels may go unwritten
  int64_t elided_ = 0;    ///< levels counted instead of written (all at the maximum)
  int32_t fixed_len_ = 0;
  ChunkData out_;
  bool has_dict_ = false;
  ByteStore dict_fixed_;
  ByteArrays dict_arrays_;
};

}  // namespace

ChunkData read_chunk(std::string_view bytes, const ColumnMeta& meta, const LeafColumn& leaf,
                     bool flat) {
  if (meta.num_values < 0) throw std::runtime_error("negative value count");
  struct Trim {
    ~Trim() {
      scratch_space().page.trim(kKeptPageBytes);
      scratch_space().ints.trim(kKeptInts);
    }
  } trim;
  return ChunkDecoder(meta, leaf, flat).run(bytes);
}

}  // namespace ember::parquet
