// Codec calls: each library's one-shot API, sizes checked on both sides.
#include "io/parquet/parquet_codecs.h"

#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "io/parquet/parquet_metadata.h"

namespace ember::parquet {

namespace {

// A GZIP page may hold several gzip members one after another (RFC 1952 allows it, and some
// writers concatenate): each is inflated in turn until the page's bytes are used up.
std::string inflate_gzip(std::string_view in, size_t out_size) {
  std::string out(out_size, '\0');
  z_stream s{};
  // 32 + MAX_WBITS: a gzip header (what Parquet writers emit) or a zlib one.
  if (inflateInit2(&s, 32 + MAX_WBITS) != Z_OK) throw std::runtime_error("zlib init failed");
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  s.avail_in = static_cast<uInt>(in.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&s, Z_FINISH);
  while (rc == Z_STREAM_END && s.avail_in > 0 && inflateReset(&s) == Z_OK) {
    rc = inflate(&s, Z_FINISH);
  }
  const size_t produced = out.size() - s.avail_out;
  inflateEnd(&s);
  if (rc != Z_STREAM_END || produced != out_size) throw std::runtime_error("corrupt GZIP page");
  return out;
}

uint32_t big_endian32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

// The deprecated LZ4 codec, as writers used it: most (parquet-mr) wrote Hadoop's framing, a
// series of [uncompressed size, compressed size] big-endian headers each before one LZ4 block;
// some wrote one bare LZ4 block. The framing is tried first, then the bare block.
std::optional<std::string> lz4_hadoop(std::string_view in, size_t out_size) {
  std::string out(out_size, '\0');
  size_t produced = 0;
  while (in.size() >= 8) {
    const uint32_t raw = big_endian32(in.data()), packed = big_endian32(in.data() + 4);
    in.remove_prefix(8);
    if (packed > in.size() || raw > out_size - produced) return std::nullopt;
    const int n = LZ4_decompress_safe(in.data(), out.data() + produced, static_cast<int>(packed),
                                      static_cast<int>(out_size - produced));
    if (n < 0 || static_cast<uint32_t>(n) != raw) return std::nullopt;
    produced += raw;
    in.remove_prefix(packed);
  }
  if (!in.empty() || produced != out_size) return std::nullopt;
  return out;
}

std::string lz4_legacy(std::string_view in, size_t out_size) {
  if (auto framed = lz4_hadoop(in, out_size)) return std::move(*framed);
  std::string out(out_size, '\0');
  const int n = LZ4_decompress_safe(in.data(), out.data(), static_cast<int>(in.size()),
                                    static_cast<int>(out.size()));
  if (n < 0 || static_cast<size_t>(n) != out_size) throw std::runtime_error("corrupt LZ4 page");
  return out;
}

std::string deflate_gzip(std::string_view in) {
  z_stream s{};
  if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK)
    throw std::runtime_error("zlib init failed");
  std::string out(deflateBound(&s, static_cast<uLong>(in.size())) + 32, '\0');
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  s.avail_in = static_cast<uInt>(in.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&s, Z_FINISH);
  out.resize(out.size() - s.avail_out);
  deflateEnd(&s);
  if (rc != Z_STREAM_END) throw std::runtime_error("gzip compression failed");
  return out;
}

}  // namespace

std::string codec_name(int32_t codec) {
  switch (codec) {
    case kUncompressed:
      return "UNCOMPRESSED";
    case kSnappy:
      return "SNAPPY";
    case kGzip:
      return "GZIP";
    case kLzo:
      return "LZO";
    case kBrotli:
      return "BROTLI";
    case kLz4:
      return "LZ4";
    case kZstd:
      return "ZSTD";
    case kLz4Raw:
      return "LZ4_RAW";
    default:
      return "codec " + std::to_string(codec);
  }
}

void decompress_into(int32_t codec, std::string_view in, char* out, size_t out_size) {
  if (out_size > (size_t{1} << 31)) throw std::runtime_error("page larger than 2 GiB");
  // An empty data page v2 compresses nothing at all: no codec frame to decode.
  if (out_size == 0 && in.empty()) return;
  switch (codec) {
    case kUncompressed:
      if (in.size() != out_size) throw std::runtime_error("page size mismatch");
      std::memcpy(out, in.data(), out_size);
      return;
    case kSnappy: {
      size_t n = 0;
      if (!snappy::GetUncompressedLength(in.data(), in.size(), &n) || n != out_size ||
          !snappy::RawUncompress(in.data(), in.size(), out))
        throw std::runtime_error("corrupt SNAPPY page");
      return;
    }
    case kZstd: {
      const size_t n = ZSTD_decompress(out, out_size, in.data(), in.size());
      if (ZSTD_isError(n) || n != out_size) throw std::runtime_error("corrupt ZSTD page");
      return;
    }
    case kGzip:
    case kLz4: {  // rare codecs, through their string forms
      const std::string page =
          codec == kGzip ? inflate_gzip(in, out_size) : lz4_legacy(in, out_size);
      if (out_size > 0) std::memcpy(out, page.data(), out_size);  // out may be null when 0
      return;
    }
    case kLz4Raw: {
      const int n = LZ4_decompress_safe(in.data(), out, static_cast<int>(in.size()),
                                        static_cast<int>(out_size));
      if (n < 0 || static_cast<size_t>(n) != out_size)
        throw std::runtime_error("corrupt LZ4_RAW page");
      return;
    }
    default:
      throw std::runtime_error("unsupported compression " + codec_name(codec) +
                               " (ember reads UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW and LZ4)");
  }
}

void compress_into(int32_t codec, std::string_view in, std::string* out) {
  switch (codec) {
    case kUncompressed:
      out->assign(in);
      return;
    case kSnappy: {
      // Grown only past its largest page so far: resize() zero-fills only new room.
      out->resize(std::max(out->size(), snappy::MaxCompressedLength(in.size())));
      size_t n = 0;
      snappy::RawCompress(in.data(), in.size(), out->data(), &n);
      out->resize(n);
      return;
    }
    case kZstd: {
      out->resize(std::max(out->size(), ZSTD_compressBound(in.size())));
      const size_t n = ZSTD_compress(out->data(), out->size(), in.data(), in.size(), 3);
      if (ZSTD_isError(n)) throw std::runtime_error("zstd compression failed");
      out->resize(n);
      return;
    }
    case kGzip:
      *out = deflate_gzip(in);
      return;
    default:
      throw std::runtime_error("cannot write " + codec_name(codec));
  }
}

}  // namespace ember::parquet
