// The control protocol between a driver and its worker process: one small message per
// SOCK_SEQPACKET datagram. Batch data never travels here, only where it lies in shared memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "ember/error.h"

namespace ember::process {

/// What a message asks for or reports. Driver -> worker: Init, Call, Stop, Lane (right after
/// Ready, one per extra call lane: that lane's channel rides along).
/// Worker -> driver: Hello (reached ember::init), Ready (UDF constructed), Result, Failed.
enum class Op : uint8_t {
  Init = 1,
  Call = 2,
  Stop = 3,
  Hello = 4,
  Ready = 5,
  Result = 6,
  Failed = 7,
  Lane = 8,
  // Between ranks only (src/dist): a rank's running counters for rank 0, and rank 0's word
  // that it has taken result batches a rank sent; a rank's request for more of a query's
  // partitions, and rank 0's answer handing some out; the rows a UDF rejected in a partition.
  Progress = 9,
  Taken = 10,
  Want = 11,
  Grant = 12,
  // A worker rank to rank 0: rows of a partition that a UDF rejected (OnError::Null or Skip),
  // sent before the partition's end.
  Rejected = 13,
  // A worker rank to rank 0: a partition's aggregate states (its rows aggregated on the rank
  // that computed them), sent before the partition's end.
  Partial = 14,
  // A worker rank to rank 0: a piece of a partition's output the rank committed (a resumable
  // write's checkpoint, or the partition's last piece), for rank 0 to journal; sent before the
  // partition's end.
  Piece = 15,
  // Rank 0 to a worker rank: another rank's actors are idle now (the partitions have run out),
  // so the worker's batches may go to them while its own actors are busy.
  Lend = 16,
  // A write spread by key range after a group-by or a sort (docs/cluster.md): rank 0 to every
  // worker rank, the keys that cut the rows each rank holds into one range per rank; any rank
  // to the rank that writes a range, its rows of that range.
  Splitters = 17,
  Range = 18,
  // Rank 0 to every worker rank: the buckets a join side's exchange left there (its id) are no
  // longer needed (the join has run, or the query has ended).
  Forget = 19
};

/// Message flags (a bit set in the header).
enum MessageFlag : uint8_t {
  /// A memfd rides along (SCM_RIGHTS): the sender's new region; it replaces the old one.
  kRegionAttached = 1,
  /// Call: the driver still references the worker's result region, so the worker must put this
  /// result into a fresh region instead of overwriting it.
  kResultRegionBusy = 2,
  /// Result or Failed: the UDF kept references into the argument region, so the driver must not
  /// overwrite it; the next call brings a fresh region.
  kArgsRetained = 4,
  /// Result: the UDF returned (a slice of) one of its argument columns; the message names it
  /// and the driver uses its own column, so nothing is copied back.
  kInputPassThrough = 8,
  /// Failed: the UDF returned a result of the wrong length, which the worker did not send; the
  /// text is its result_shape() (udf_call.h), for the driver to word as a thread actor would.
  kResultRejected = 16,
};

/// Every message starts with this (flags at byte 1).
struct MessageHeader {
  Op op;
  uint8_t flags;
};
static_assert(sizeof(MessageHeader) == 2 && offsetof(MessageHeader, flags) == 1);

/// Where one buffer of a column lies inside a shared region.
struct BufferRef {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint8_t present = 0;
  uint8_t reserved[7] = {};  ///< explicit, so every byte sent is initialised
};

/// One column: its type, shape and buffers. `offset` is the column's logical start inside its
/// buffers (0..7, so bitmaps keep their bit alignment without shifting).
struct ColumnDesc {
  uint8_t type_id = 0;
  uint8_t reserved[7] = {};
  int64_t length = 0;
  int64_t null_count = 0;
  int64_t offset = 0;
  BufferRef validity, values, data;
};
static_assert(sizeof(ColumnDesc) == 32 + 3 * sizeof(BufferRef) && sizeof(BufferRef) == 24,
              "descriptors travel as raw bytes: no implicit padding");

/// Largest control message; bigger batches of descriptors are refused with a clear error.
inline constexpr size_t kMaxMessageBytes = 64 * 1024;

/// Appends plain values and length-prefixed strings. Reused across messages (keeps capacity).
class MessageWriter {
 public:
  void begin(Op op, uint8_t flags = 0) {
    bytes_.clear();
    put(MessageHeader{op, flags});
  }
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  /// The length prefix of a field of `n` bytes: put_string()'s, or that of a field whose bytes
  /// follow the head elsewhere (a message sent in pieces). Throws Error past the 4 GiB a prefix
  /// can say, rather than cut the length.
  void put_length(size_t n) {
    if (n > UINT32_MAX)
      throw Error("a message field of " + std::to_string(n >> 20) +
                  " MiB is over the 4 GiB one message field carries");
    put(static_cast<uint32_t>(n));
  }
  void put_string(std::string_view s) {
    put_length(s.size());
    bytes_.append(s);
  }
  /// Flags of the message being written (after begin()).
  uint8_t flags() const { return static_cast<uint8_t>(bytes_[1]); }
  void add_flags(uint8_t flags) { bytes_[1] = static_cast<char>(flags | this->flags()); }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

/// Reads what MessageWriter wrote, checking every length: a malformed message is an internal
/// error, never a read past the end.
class MessageReader {
 public:
  explicit MessageReader(std::string_view bytes) : bytes_(bytes) { header_ = get<MessageHeader>(); }
  /// Reads bytes that a MessageWriter wrote without begin(): a value carried inside a message
  /// as one string, such as a UDF's settings (udf/udf_spec_codec.h). header() is then zero.
  static MessageReader unframed(std::string_view bytes) {
    MessageReader r;
    r.bytes_ = bytes;
    return r;
  }
  const MessageHeader& header() const { return header_; }
  /// Bytes not read yet.
  size_t remaining() const { return bytes_.size() - pos_; }
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T));
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string_view get_string() {
    const auto n = get<uint32_t>();
    need(n);
    std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  MessageReader() = default;
  void need(size_t n) const {
    if (bytes_.size() - pos_ < n) {
      throw Error("process isolation: truncated control message (" + std::to_string(bytes_.size()) +
                  " bytes)");
    }
  }
  std::string_view bytes_;
  size_t pos_ = 0;
  MessageHeader header_{};
};

}  // namespace ember::process
