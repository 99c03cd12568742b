// LZ4 frames (liblz4's frame API) and Zstandard frames (libzstd) around each buffer.
#include "io/arrow/arrow_body_codec.h"

#include <lz4frame.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace ember::arrow_ipc {

namespace {

// Both decoders grow their output as the frame produces it, never past `size`: a corrupt length
// cannot make them reserve memory the frame does not fill.
constexpr size_t kChunk = 1 << 16;

std::string lz4_frame_decompress(std::string_view in, size_t size) {
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION)))
    throw std::runtime_error("LZ4 init failed");
  const std::unique_ptr<LZ4F_dctx, decltype(&LZ4F_freeDecompressionContext)> ctx(
      raw, &LZ4F_freeDecompressionContext);
  std::string out;
  size_t consumed = 0;
  for (;;) {
    const size_t have = out.size();
    out.resize(have + std::min(kChunk, size - have + 1));  // one byte over: a frame too long shows
    size_t dst = out.size() - have, src = in.size() - consumed;
    const size_t hint =
        LZ4F_decompress(ctx.get(), out.data() + have, &dst, in.data() + consumed, &src, nullptr);
    if (LZ4F_isError(hint)) throw std::runtime_error("corrupt LZ4 frame in a buffer");
    out.resize(have + dst);
    consumed += src;
    if (out.size() > size) throw std::runtime_error("an LZ4 buffer decodes past its length");
    if (hint == 0) break;  // the frame ended
    if (consumed == in.size() && dst == 0) throw std::runtime_error("an LZ4 frame ends early");
  }
  if (out.size() != size) throw std::runtime_error("an LZ4 buffer decodes to another length");
  return out;
}

std::string zstd_decompress(std::string_view in, size_t size) {
  const std::unique_ptr<ZSTD_DStream, decltype(&ZSTD_freeDStream)> ctx(ZSTD_createDStream(),
                                                                       &ZSTD_freeDStream);
  if (!ctx) throw std::runtime_error("Zstandard init failed");
  std::string out;
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  for (;;) {
    const size_t have = out.size();
    out.resize(have + std::min(kChunk, size - have + 1));
    ZSTD_outBuffer dst{out.data(), out.size(), have};
    const size_t rc = ZSTD_decompressStream(ctx.get(), &dst, &src);
    if (ZSTD_isError(rc)) throw std::runtime_error("corrupt Zstandard buffer");
    out.resize(dst.pos);
    if (out.size() > size) throw std::runtime_error("a Zstandard buffer decodes past its length");
    if (rc == 0) break;  // the frame ended
    if (src.pos == src.size && dst.pos == have)
      throw std::runtime_error("a Zstandard frame ends early");
  }
  if (out.size() != size) throw std::runtime_error("a Zstandard buffer decodes to another length");
  return out;
}

}  // namespace

std::string decompress_buffer(BodyCodec codec, std::string_view stored, int64_t limit) {
  if (stored.empty()) return {};
  if (stored.size() < 8) throw std::runtime_error("a compressed buffer without its length");
  int64_t size;
  std::memcpy(&size, stored.data(), 8);
  stored.remove_prefix(8);
  if (size == -1) return std::string(stored);  // stored as it is
  if (size < 0 || size > limit)
    throw std::runtime_error("a compressed buffer claims " + std::to_string(size) + " bytes");
  if (codec == BodyCodec::Lz4Frame) return lz4_frame_decompress(stored, size_t(size));
  return zstd_decompress(stored, size_t(size));
}

std::string compress_buffer(BodyCodec codec, std::string_view bytes) {
  if (bytes.empty()) return {};
  std::string out(8, '\0');
  const int64_t size = int64_t(bytes.size());
  std::memcpy(out.data(), &size, 8);
  std::string packed;
  if (codec == BodyCodec::Lz4Frame) {
    packed.resize(LZ4F_compressFrameBound(bytes.size(), nullptr));
    const size_t n =
        LZ4F_compressFrame(packed.data(), packed.size(), bytes.data(), bytes.size(), nullptr);
    if (LZ4F_isError(n)) throw std::runtime_error("LZ4 compression failed");
    packed.resize(n);
  } else {
    packed.resize(ZSTD_compressBound(bytes.size()));
    const size_t n = ZSTD_compress(packed.data(), packed.size(), bytes.data(), bytes.size(), 3);
    if (ZSTD_isError(n)) throw std::runtime_error("Zstandard compression failed");
    packed.resize(n);
  }
  if (packed.size() >= bytes.size()) {  // no smaller: kept as it is, marked by length -1
    const int64_t as_is = -1;
    std::memcpy(out.data(), &as_is, 8);
    return out.append(bytes);
  }
  return out.append(packed);
}

}  // namespace ember::arrow_ipc
