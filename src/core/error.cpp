// Re-raising errors that crossed a thread, process or rank boundary as (code, message).
#include "ember/error.h"

#include "core/cancelled.h"

namespace ember {

void throw_error(ErrorCode code, const std::string& message) {
  if (code == kCancelledCode) throw Cancelled(message);
  switch (code) {
    case ErrorCode::Resource:
      throw ResourceError(message);
    case ErrorCode::Udf:
      throw UdfError(message);
    case ErrorCode::Io:
      throw IoError(message);
    case ErrorCode::Parse:
      throw ParseError(message);
    case ErrorCode::Type:
      throw TypeError(message);
    case ErrorCode::InvalidArgument:
      throw InvalidArgument(message);
    case ErrorCode::Internal:
      break;
  }
  // Unknown codes (e.g. from a newer peer) degrade to the base type rather than being lost.
  throw Error(message, ErrorCode::Internal);
}

}  // namespace ember
