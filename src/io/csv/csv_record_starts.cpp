// find_csv_record_starts: one pass over a CSV file that knows, for every byte, whether it lies
// inside a quoted field, 64 bytes at a time.
//
// Why a whole pass: whether a line break ends a record depends on every quote before it, so no
// look around a cut point can tell a record start from a line break inside a quoted field (nor
// can the inference sample: a multi-line field may first appear after it). Only files that are
// split pay for the pass, and it ends at the record after the last cut. Quote-free stretches are
// passed over with memchr, so such data costs about what copying it out of the page cache does
// (about 0.13 s per GB on the benchmark machine, where searching on two threads gained little
// for that reason); data with quoted fields on every row about 0.35 s per GB.
//
// How: each 64-byte block is classified (csv_block_classifier.h), and "inside quotes" is taken
// as the running parity of the quotes, a prefix XOR of the quote mask. Parity agrees with the
// record reader, whose quote opens a field only at a field start, as long as every quote that
// parity calls opening follows a delimiter, a line break, the start of the file, or a quote
// that parity calls closing. By induction over the quotes of the file:
//  - after a delimiter or line break outside quotes the reader is at a field start, so it opens
//    a quoted field there too;
//  - a quote that parity calls closing finds the reader inside a quoted field: the reader
//    either leaves it, as parity does, or, when another quote follows, reads a doubled quote;
//    parity then calls that next quote opening, after a closing quote, and both are inside.
// A block holding an opening quote after any other byte (a bare quote, as in `ab"c`, which the
// reader keeps as data), or a closing quote followed by anything but a delimiter, line break or
// quote (input the reader rejects), is walked again byte by byte with the reader's own rules,
// from the exact state at the block's start. A record starts after every '\n' and '\r' outside
// quotes: a split that starts at the '\n' of a "\r\n" begins with a blank line, which readers
// skip.
#include "io/csv/csv_record_starts.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <memory>

#include "ember/error.h"
#include "io/byte_source.h"
#include "io/csv/csv_block_classifier.h"
#include "io/file_range.h"

namespace ember {
namespace {

// Read size: large enough to amortise the system call, small enough to stay in cache while it
// is scanned. A multiple of 64, so only the last block of the file is partial.
constexpr size_t kChunkBytes = size_t{1} << 20;
constexpr size_t kBlockBytes = 64;
// A remote file is read in larger pieces: each is a request with a round trip.
constexpr size_t kRemoteChunkBytes = size_t{16} << 20;

/// What the byte before a block leaves for the block's first byte.
enum class Before : uint8_t {
  FieldStart,    ///< outside quotes at a field start: the file's start, a delimiter, a break
  ClosingQuote,  ///< a quote that left a quoted field (or began a doubled quote inside one)
  Other,         ///< inside a quoted field, or inside an unquoted one
};

struct ScanState {
  bool inside = false;  ///< the byte before the block lies inside a quoted field
  Before before = Before::FieldStart;
};

/// Bit i of the result is the XOR of bits 0..i of x.
uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

/// The block's first `len` bytes; the rest is padding.
uint64_t valid_bits(size_t len) {
  return len >= kBlockBytes ? ~uint64_t{0} : (uint64_t{1} << len) - 1;
}

/// Scans a block by quote parity (see the top of the file). Returns false, leaving `state`
/// alone, when parity cannot be trusted for this block; else sets `record_ends` to the line
/// breaks outside quotes and advances `state`.
bool scan_by_parity(const CsvBlockMasks& m, size_t len, ScanState& state, uint64_t& record_ends) {
  const uint64_t valid = valid_bits(len);
  const uint64_t breaks = m.newline | m.carriage_return;
  const uint64_t separators = m.delimiter | breaks;
  // Bit i: byte i lies inside a quoted field, a quote counting as inside when it opens one.
  const uint64_t inside = prefix_xor(m.quote) ^ (state.inside ? ~uint64_t{0} : 0);
  const uint64_t opening = m.quote & inside;
  const uint64_t closing = m.quote & ~inside & valid;
  const uint64_t may_open = ((separators | m.quote) << 1) | (state.before != Before::Other ? 1 : 0);
  // What follows a closing quote: bit 63's follower is checked with the next block, and the
  // last byte of the file may be followed by nothing.
  const uint64_t may_follow_close = ((separators | m.quote | ~valid) >> 1) | (uint64_t{1} << 63);
  const bool follows_close_badly =
      state.before == Before::ClosingQuote && ((separators | m.quote) & 1) == 0 && len > 0;
  if ((opening & ~may_open) != 0 || (closing & ~may_follow_close) != 0 || follows_close_badly) {
    return false;
  }
  record_ends = breaks & ~inside & valid;
  state.inside = (inside >> 63) != 0;
  state.before = (closing >> 63) != 0                  ? Before::ClosingQuote
                 : ((separators & ~inside) >> 63) != 0 ? Before::FieldStart
                                                       : Before::Other;
  return true;
}

/// Scans a block byte by byte with the record reader's rules. Returns false when the block holds
/// a character after a closing quote that the reader rejects; `record_ends` then holds the line
/// breaks before it.
bool scan_exactly(const char* block, size_t len, char delimiter, ScanState& state,
                  uint64_t& record_ends) {
  enum class At { FieldStart, Unquoted, Quoted, QuoteInQuoted };
  At at = state.inside                           ? At::Quoted
          : state.before == Before::FieldStart   ? At::FieldStart
          : state.before == Before::ClosingQuote ? At::QuoteInQuoted
                                                 : At::Unquoted;
  record_ends = 0;
  for (size_t i = 0; i < len; ++i) {
    const char c = block[i];
    const bool is_break = c == '\n' || c == '\r';
    if (at == At::Quoted) {
      if (c == '"') at = At::QuoteInQuoted;
      continue;
    }
    if (c == '"' && (at == At::QuoteInQuoted || at == At::FieldStart)) {
      at = At::Quoted;  // a doubled quote, or a quoted field opening
      continue;
    }
    if (at == At::QuoteInQuoted && c != delimiter && !is_break) return false;
    // Outside quotes: a delimiter or a line break ends the field; anything else is data.
    if (is_break) record_ends |= uint64_t{1} << i;
    at = c == delimiter || is_break ? At::FieldStart : At::Unquoted;
  }
  state.inside = at == At::Quoted;
  state.before = at == At::QuoteInQuoted ? Before::ClosingQuote
                 : at == At::FieldStart  ? Before::FieldStart
                                         : Before::Other;
  return true;
}

/// Follows the quoting of a file block by block and resolves the cuts in order.
class RecordStartFinder {
 public:
  RecordStartFinder(char delimiter, const std::vector<int64_t>& cuts)
      : delimiter_(delimiter), cuts_(cuts) {}

  /// Scans the `n` bytes read from file offset `offset` (64 readable bytes follow them).
  /// Returns false once no further cut can be resolved: all are, or the file is malformed here.
  bool scan_chunk(const char* data, size_t n, int64_t offset) {
    const char* quote = data;  // the first quote at or after `quote`, once searched
    uint64_t quotes = 0;       // the quotes of the block before
    for (size_t b = 0; b < n && next_ < cuts_.size(); b += kBlockBytes) {
      // Quotes come in runs: look for a quote-free stretch only after a quote-free block.
      if (quotes == 0) b += skippable(data, n, offset, b, quote);
      if (b >= n) break;
      const CsvBlockMasks m = classify_csv_block(data + b, delimiter_);
      quotes = m.quote;
      const size_t len = std::min(kBlockBytes, n - b);
      uint64_t record_ends = 0;
      const bool well_formed = scan_by_parity(m, len, state_, record_ends) ||
                               scan_exactly(data + b, len, delimiter_, state_, record_ends);
      resolve(record_ends, offset + static_cast<int64_t>(b));
      if (!well_formed) return false;
    }
    return next_ < cuts_.size();
  }

  std::vector<int64_t> take() { return std::move(starts_); }

 private:
  /// Whole blocks from `b` on that hold no quote and no line break that a cut waits for: the
  /// quoting state cannot change in them, so they are passed over at memchr's speed. `quote`
  /// caches the next quote's position between calls.
  size_t skippable(const char* data, size_t n, int64_t offset, size_t b, const char*& quote) {
    if (state_.before == Before::ClosingQuote) return 0;  // the next byte must be checked
    if (quote < data + b) {
      quote = static_cast<const char*>(std::memchr(data + b, '"', n - b));
      if (quote == nullptr) quote = data + n;
    }
    int64_t limit = quote - data;
    if (!state_.inside && next_ < cuts_.size()) {
      limit = std::min(limit, cuts_[next_] - 1 - offset);  // a line break there resolves the cut
    }
    if (limit < static_cast<int64_t>(b + kBlockBytes)) return 0;
    const size_t skip = (static_cast<size_t>(limit) - b) / kBlockBytes * kBlockBytes;
    const char last = data[b + skip - 1];
    const bool separator = last == delimiter_ || last == '\n' || last == '\r';
    state_.before = !state_.inside && separator ? Before::FieldStart : Before::Other;
    return skip;
  }

  /// A record starts just after a line break outside quotes; the first one at or after
  /// cut - 1 gives the cut's record start.
  void resolve(uint64_t record_ends, int64_t offset) {
    while (next_ < cuts_.size()) {
      const int64_t from = cuts_[next_] - 1;
      if (from >= offset + static_cast<int64_t>(kBlockBytes)) return;
      const int skip = from > offset ? static_cast<int>(from - offset) : 0;
      const uint64_t ends = record_ends & (~uint64_t{0} << skip);
      if (ends == 0) return;
      starts_.push_back(offset + std::countr_zero(ends) + 1);
      ++next_;
    }
  }

  char delimiter_;
  const std::vector<int64_t>& cuts_;
  size_t next_ = 0;  ///< the first cut not resolved yet
  ScanState state_;
  std::vector<int64_t> starts_;
};

/// Reads up to `size` bytes at `offset`, fewer only at the end of the file.
size_t read_fully(const ByteSource& file, char* out, size_t size, int64_t offset) {
  size_t done = 0;
  while (done < size) {
    const size_t n = file.read_at(out + done, size - done, offset + static_cast<int64_t>(done));
    if (n == 0) break;
    done += n;
  }
  return done;
}

}  // namespace

std::vector<int64_t> find_csv_record_starts(const std::string& path, char delimiter,
                                            const std::vector<int64_t>& cuts,
                                            const StorageOptions& storage, int64_t size) {
  if (cuts.empty()) return {};
  const std::unique_ptr<ByteSource> file = open_byte_source(path, storage, size);
  if (!file->remote()) static_cast<const ReadOnlyFile&>(*file).hint_sequential();
  const size_t chunk = file->remote() ? kRemoteChunkBytes : kChunkBytes;
  auto buf = std::make_unique_for_overwrite<char[]>(chunk + kBlockBytes);
  RecordStartFinder finder(delimiter, cuts);
  for (int64_t offset = 0;; offset += static_cast<int64_t>(chunk)) {
    const size_t n = read_fully(*file, buf.get(), chunk, offset);
    // The last block of the file is partial: its padding must not look like quotes or breaks.
    std::memset(buf.get() + n, 0, kBlockBytes);
    // The reader skips a byte-order mark, so the first field starts after it.
    const bool mark = offset == 0 && n >= 3 && std::memcmp(buf.get(), "\xEF\xBB\xBF", 3) == 0;
    const size_t skip = mark ? 3 : 0;
    if (!finder.scan_chunk(buf.get() + skip, n - skip, offset + static_cast<int64_t>(skip)) ||
        n < chunk) {
      break;
    }
  }
  return finder.take();
}

}  // namespace ember
