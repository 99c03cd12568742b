// The IPC format's buffer compression (BodyCompression, method BUFFER): each buffer of a
// compressed record batch is its uncompressed length as a little-endian int64, then an LZ4 frame
// or a Zstandard frame of its bytes; a length of -1 marks a buffer stored as it is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ember::arrow_ipc {

/// The codecs of BodyCompression, as the format numbers them.
enum class BodyCodec : int8_t { Lz4Frame = 0, Zstd = 1 };

/// The bytes of one buffer of a compressed body. std::runtime_error when the buffer is corrupt
/// or claims more than `limit` bytes.
std::string decompress_buffer(BodyCodec codec, std::string_view stored, int64_t limit);

/// One buffer as a compressed body stores it (the length prefix included): compressed, or as it
/// is when compressing would not make it smaller.
std::string compress_buffer(BodyCodec codec, std::string_view bytes);

}  // namespace ember::arrow_ipc
