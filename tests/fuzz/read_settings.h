// Reader settings a fuzz target takes from its input's first byte, so the fuzzer explores them
// with the file's bytes: split sizes small enough to cut a short file in many places, batch
// sizes around the readers' internal boundaries, and a schema sample a short file can outgrow.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace ember::fuzzing {

struct ReadSettings {
  int64_t split_bytes;  ///< 16..512
  int64_t batch_rows;   ///< 1, 3, 17 or 256
  int64_t infer_rows;   ///< rows sampled for the schema: the default 1000, or 2
};

/// Consumes the input's first byte (none when it is empty) and returns the settings it encodes:
/// bits 0-4 the split size, bits 5-6 the batch size, bit 7 the sample size. The rest of the
/// input is the file. A separate byte, rather than one of the file's, lets a mutation change the
/// settings without breaking the file (a CSV header, a JSON line's opening brace).
inline ReadSettings take_read_settings(const uint8_t*& data, size_t& size) {
  static constexpr std::array<int64_t, 4> kBatchRows = {1, 3, 17, 256};
  unsigned b = 0;
  if (size > 0) {
    b = data[0];
    ++data;
    --size;
  }
  return ReadSettings{16 + int64_t(b & 31u) * 16, kBatchRows[(b >> 5) & 3u],
                      (b & 128u) != 0 ? 2 : 1000};
}

}  // namespace ember::fuzzing
