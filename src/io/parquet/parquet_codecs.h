// Page compression through the system libraries: Snappy, Zstd, Gzip (zlib), LZ4 raw.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ember::parquet {

/// Decompresses `in` (codec per parquet_metadata.h) into exactly `out_size` bytes at `out`,
/// which has room for them (a reader reuses one buffer for every page); throws
/// std::runtime_error for an unsupported codec or corrupt data.
void decompress_into(int32_t codec, std::string_view in, char* out, size_t out_size);

/// Compresses with `codec` (Uncompressed, Snappy, Gzip or Zstd) into `*out`, replacing what it
/// held; its room is kept from call to call.
void compress_into(int32_t codec, std::string_view in, std::string* out);

/// The codec's name for messages ("SNAPPY", "LZ4_RAW", ...).
std::string codec_name(int32_t codec);

}  // namespace ember::parquet
