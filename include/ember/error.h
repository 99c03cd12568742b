/// \file
/// The ember::Error hierarchy: every failure the public API reports is one of these.
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ember {

/// Portable error kind: lets an error cross a thread, process or MPI boundary as a value
/// (code + message) and be re-raised as the same C++ type on the other side.
enum class ErrorCode : uint8_t {
  Internal = 0,         ///< a plain Error: a broken invariant inside ember
  Resource = 1,         ///< ResourceError
  Udf = 2,              ///< UdfError
  Io = 3,               ///< IoError
  Parse = 4,            ///< ParseError
  Type = 5,             ///< TypeError
  InvalidArgument = 6,  ///< InvalidArgument
};

/// Base of every exception ember throws.
class Error : public std::runtime_error {
 public:
  /// An error of kind `code`; `message` is what() returns.
  explicit Error(const std::string& message, ErrorCode code = ErrorCode::Internal)
      : std::runtime_error(message), code_(code) {}
  /// The portable kind of this error.
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

/// Admission failed: the query's actor pools do not fit in the resources that exist.
class ResourceError : public Error {
 public:
  /// An error with message `m`.
  explicit ResourceError(const std::string& m) : Error(m, ErrorCode::Resource) {}
};
/// A UDF failed to construct, threw from a call, returned a bad column, or its worker died.
class UdfError : public Error {
 public:
  /// An error with message `m`.
  explicit UdfError(const std::string& m) : Error(m, ErrorCode::Udf) {}
};
/// `text` with each control character written as `\xHH`: a message that names a file or quotes
/// its bytes stays on one line and cannot send a terminal escape. Applying it twice changes
/// nothing more, so an error that crosses a process boundary reads the same on both sides.
inline std::string printable(const std::string& text) {
  std::string shown;
  shown.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      shown += c;
      continue;
    }
    const char* hex = "0123456789abcdef";
    shown += {'\\', 'x', hex[u >> 4], hex[u & 15]};
  }
  return shown;
}

/// A file could not be found, read or written. Control characters in the message (a file's
/// name) are shown as `\xHH`.
class IoError : public Error {
 public:
  /// An error with message `m`.
  explicit IoError(const std::string& m) : Error(printable(m), ErrorCode::Io) {}
};
/// Malformed input; the message starts with `file:line:column:`. Control characters in the
/// message (a file's name, a quoted value) are shown as `\xHH`.
class ParseError : public Error {
 public:
  /// An error with message `m`.
  explicit ParseError(const std::string& m) : Error(printable(m), ErrorCode::Parse) {}
  /// Builds "file:line:column: message".
  static ParseError at(const std::string& file, int64_t line, int64_t column,
                       const std::string& message) {
    return ParseError(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                      message);
  }
};
/// A type mismatch found when the plan is built.
class TypeError : public Error {
 public:
  /// An error with message `m`.
  explicit TypeError(const std::string& m) : Error(m, ErrorCode::Type) {}
};
/// A bad argument to an API call (validated when building, not when running).
class InvalidArgument : public Error {
 public:
  /// An error with message `m`.
  explicit InvalidArgument(const std::string& m) : Error(m, ErrorCode::InvalidArgument) {}
};
/// Thrown by a UDF's call to ask for the batch to be run again after `delay` instead of the
/// UDF's retry_backoff (e.g. a service that answered "429, retry after 2 s"). It counts as one
/// of the batch's max_retries; once they are spent the batch fails as any other, with this
/// message.
class RetryAfter : public Error {
 public:
  /// Asks for the batch to run again after `delay`, with a message saying so.
  explicit RetryAfter(std::chrono::milliseconds delay)
      : RetryAfter(delay, "asked to be retried after " + std::to_string(delay.count()) + " ms") {}
  /// As above, with message `m`: the one the batch fails with once its retries are spent.
  RetryAfter(std::chrono::milliseconds delay, const std::string& m)
      : Error(m, ErrorCode::Udf), delay_(delay) {}
  /// How long to wait before the batch runs again.
  std::chrono::milliseconds delay() const noexcept { return delay_; }

 private:
  std::chrono::milliseconds delay_;
};
/// Re-raises an error that travelled as (code, message) as the matching C++ type.
[[noreturn]] void throw_error(ErrorCode code, const std::string& message);

}  // namespace ember
