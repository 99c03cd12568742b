// The hybrid RLE/bit-packing and the DELTA encodings, as the Parquet format specifies them.
#include "io/parquet/parquet_encodings.h"

#include <array>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace ember::parquet {

namespace {

uint64_t read_uleb(const uint8_t** p, const uint8_t* end) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p >= end) throw std::runtime_error("encoded values end early");
    const uint8_t b = *(*p)++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  throw std::runtime_error("malformed varint in encoded values");
}

int64_t read_zigzag(const uint8_t** p, const uint8_t* end) {
  const uint64_t v = read_uleb(p, end);
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// Bit i of a little-endian bit stream, `width` bits at a time.
uint64_t unpack(const uint8_t* base, uint64_t bit, int width) {
  uint64_t v = 0;
  for (int b = 0; b < width; ++b, ++bit)
    v |= static_cast<uint64_t>((base[bit >> 3] >> (bit & 7)) & 1) << b;
  return v;
}

/// Eight values of `W` bits from `in`, which may be read 8 bytes past its W bytes (the
/// caller checks): one unaligned 64-bit load per value at offsets the compiler knows.
template <int W>
void unpack8(const uint8_t* in, uint32_t* out) {
  constexpr uint64_t kMask = (uint64_t{1} << W) - 1;
  for (int j = 0; j < 8; ++j) {
    uint64_t word;
    std::memcpy(&word, in + (j * W) / 8, 8);
    out[j] = static_cast<uint32_t>((word >> ((j * W) % 8)) & kMask);
  }
}

using Unpack8 = void (*)(const uint8_t*, uint32_t*);

template <int... W>
constexpr std::array<Unpack8, sizeof...(W) + 1> unpackers(std::integer_sequence<int, W...>) {
  return {nullptr, &unpack8<W + 1>...};
}

/// unpack8<W> for W in 1..32 (index 0 unused: width 0 never packs).
constexpr auto kUnpack8 = unpackers(std::make_integer_sequence<int, 32>());

}  // namespace

void decode_rle(const uint8_t* data, size_t size, int bit_width, int64_t n, uint32_t* out) {
  if (bit_width < 0 || bit_width > 32) throw std::runtime_error("bit width above 32");
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  int64_t k = 0;
  const size_t value_bytes = static_cast<size_t>((bit_width + 7) / 8);
  while (k < n) {
    const uint64_t header = read_uleb(&p, end);
    if (header & 1) {  // bit-packed: (header >> 1) groups of 8 values
      const uint64_t groups = header >> 1;
      // Compared by division: a count read from the page could make the product wrap.
      if (bit_width > 0 &&
          groups > static_cast<uint64_t>(end - p) / static_cast<uint64_t>(bit_width))
        throw std::runtime_error("bit-packed run past its page");
      const uint64_t bytes = groups * static_cast<uint64_t>(bit_width);
      // A group of 8 values fills bit_width bytes: each group copied into a zero-padded word
      // buffer, its values read with one 64-bit load each.
      const uint64_t mask = (uint64_t{1} << bit_width) - 1;
      const auto width = static_cast<size_t>(bit_width);
      uint64_t g = 0;
      if (bit_width > 0) {
        // Whole groups straight from the page while 8 bytes past each group are in it.
        const Unpack8 fast = kUnpack8[static_cast<size_t>(bit_width)];
        const auto room = static_cast<uint64_t>(end - p);
        for (; g < groups && n - k >= 8 && (g + 1) * width + 8 <= room; ++g, k += 8)
          fast(p + g * width, out + k);
      }
      for (; g < groups && k < n; ++g) {
        uint8_t group[40] = {};
        std::memcpy(group, p + g * width, width);
        for (size_t j = 0; j < 8 && k < n; ++j) {
          const size_t bit = j * width;
          uint64_t word;
          std::memcpy(&word, group + (bit >> 3), 8);
          out[k++] = static_cast<uint32_t>((word >> (bit & 7)) & mask);
        }
      }
      p += bytes;
    } else {  // a run of one value
      const uint64_t count = header >> 1;
      if (value_bytes > static_cast<size_t>(end - p))
        throw std::runtime_error("RLE run past its page");
      uint32_t v = 0;
      for (size_t b = 0; b < value_bytes; ++b) v |= static_cast<uint32_t>(p[b]) << (8 * b);
      p += value_bytes;
      if (count == 0) throw std::runtime_error("empty RLE run");
      for (uint64_t i = 0; i < count && k < n; ++i) out[k++] = v;
    }
  }
}

void decode_delta_binary_packed(const uint8_t** pp, const uint8_t* end, int64_t max_values,
                                std::vector<int64_t>* out) {
  const uint8_t*& p = *pp;
  const uint64_t block_size = read_uleb(&p, end);
  const uint64_t miniblocks = read_uleb(&p, end);
  const uint64_t total = read_uleb(&p, end);
  int64_t value = read_zigzag(&p, end);
  if (miniblocks == 0 || block_size == 0 || block_size % miniblocks != 0 ||
      block_size > (1u << 20) || total > static_cast<uint64_t>(max_values) + 1)
    throw std::runtime_error("malformed DELTA_BINARY_PACKED header");
  const uint64_t per_mini = block_size / miniblocks;
  if (total == 0) return;
  out->push_back(value);
  uint64_t left = total - 1;
  while (left > 0) {
    const int64_t min_delta = read_zigzag(&p, end);
    if (static_cast<uint64_t>(end - p) < miniblocks)
      throw std::runtime_error("DELTA block past its page");
    const uint8_t* widths = p;
    p += miniblocks;
    for (uint64_t m = 0; m < miniblocks && left > 0; ++m) {
      const int w = widths[m];
      if (w > 64) throw std::runtime_error("DELTA bit width above 64");
      // Rounded up: the spec's miniblocks hold a multiple of 32 values, a corrupt one may not,
      // and its last value's bits reach into the last byte.
      const uint64_t bytes = (per_mini * static_cast<uint64_t>(w) + 7) / 8;
      if (bytes > static_cast<uint64_t>(end - p))
        throw std::runtime_error("DELTA miniblock past its page");
      for (uint64_t i = 0; i < per_mini && left > 0; ++i, --left) {
        const uint64_t d = unpack(p, i * static_cast<uint64_t>(w), w);
        // Wrapping arithmetic, as the format specifies.
        value = static_cast<int64_t>(static_cast<uint64_t>(value) +
                                     static_cast<uint64_t>(min_delta) + d);
        out->push_back(value);
      }
      p += bytes;
    }
  }
}

void ByteStore::reserve(size_t n) {
  if (n <= cap_) return;
  auto next = detail::BufferAccess::allocate_uninitialized(static_cast<int64_t>(n));
  if (size_) std::memcpy(detail::BufferAccess::mutable_data(*next), buf_->data(), size_);
  buf_ = std::move(next);
  cap_ = n;
}

std::shared_ptr<Buffer> ByteStore::share() const {
  if (!buf_) return detail::BufferAccess::allocate_uninitialized(0);
  // A buffer that grew by doubling may be mostly empty: the column would hold the empty part
  // for as long as it lives, so a copy of the bytes is cheaper then.
  if (cap_ <= size_ + size_ / 2 + 4096) return buf_;
  return Buffer::copy_of(buf_->data(), static_cast<int64_t>(size_));
}

void decode_delta_length_byte_array(const uint8_t* p, const uint8_t* end, int64_t n,
                                    ByteArrays* out) {
  std::vector<int64_t> lengths;
  decode_delta_binary_packed(&p, end, n, &lengths);
  if (static_cast<int64_t>(lengths.size()) < n) throw std::runtime_error("too few DELTA lengths");
  for (int64_t i = 0; i < n; ++i) {
    const int64_t len = lengths[size_t(i)];
    if (len < 0 || len > end - p) throw std::runtime_error("DELTA_LENGTH value past its page");
    out->add(reinterpret_cast<const char*>(p), static_cast<size_t>(len));
    p += len;
  }
}

void decode_delta_byte_array(const uint8_t* p, const uint8_t* end, int64_t n, ByteArrays* out) {
  std::vector<int64_t> prefixes;
  decode_delta_binary_packed(&p, end, n, &prefixes);
  ByteArrays suffixes;
  decode_delta_length_byte_array(p, end, n, &suffixes);
  if (static_cast<int64_t>(prefixes.size()) < n) throw std::runtime_error("too few DELTA prefixes");
  std::string prev;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t pre = prefixes[size_t(i)];
    if (pre < 0 || pre > static_cast<int64_t>(prev.size()))
      throw std::runtime_error("DELTA prefix longer than the previous value");
    std::string v = prev.substr(0, static_cast<size_t>(pre));
    const int32_t b = suffixes.offsets[size_t(i)], e = suffixes.offsets[size_t(i) + 1];
    v.append(suffixes.bytes.data() + b, static_cast<size_t>(e - b));
    out->add(v.data(), v.size());
    prev = std::move(v);
  }
}

void encode_rle(const std::vector<uint32_t>& values, int bit_width, std::string* out) {
  const size_t n = values.size();
  const size_t value_bytes = static_cast<size_t>((bit_width + 7) / 8);
  auto uleb = [&](uint64_t v) {
    while (v >= 0x80) {
      out->push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out->push_back(static_cast<char>(v));
  };
  // Repeats of values[j] from j, counting no further than `limit`.
  auto run_at = [&](size_t j, size_t limit) {
    size_t r = 1;
    while (j + r < n && r < limit && values[j + r] == values[j]) ++r;
    return r;
  };
  size_t i = 0;
  while (i < n) {
    if (run_at(i, 8) >= 8) {
      const size_t run = run_at(i, n);
      uleb(static_cast<uint64_t>(run) << 1);
      for (size_t b = 0; b < value_bytes; ++b)
        out->push_back(static_cast<char>((values[i] >> (8 * b)) & 0xff));
      i += run;
      continue;
    }
    // Groups of 8 bit-packed values until a run of 8 starts at a group boundary; the last
    // group of the column is padded with zeros (the reader knows the value count).
    size_t j = i;
    do {
      j += 8;
    } while (j < n && run_at(j, 8) < 8);
    const size_t groups = (j - i) / 8;
    uleb((static_cast<uint64_t>(groups) << 1) | 1);
    std::string packed(groups * static_cast<size_t>(bit_width), '\0');
    for (size_t k = 0; k < groups * 8; ++k) {
      const uint32_t v = i + k < n ? values[i + k] : 0;
      for (int b = 0; b < bit_width; ++b) {
        const size_t bit = k * static_cast<size_t>(bit_width) + static_cast<size_t>(b);
        if ((v >> b) & 1) packed[bit >> 3] = static_cast<char>(packed[bit >> 3] | (1 << (bit & 7)));
      }
    }
    out->append(packed);
    i = j;
  }
}

}  // namespace ember::parquet
