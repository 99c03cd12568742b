// Errors as values between ranks: code, message and a RetryAfter's delay.
#include "dist/rank_protocol.h"

#include "udf/actor.h"

namespace ember::dist {

namespace {
/// Error text is cut here: it is a message, not a log.
constexpr size_t kMaxErrorBytes = 16 * 1024;
}  // namespace

std::string failure_message(uint64_t key, const std::exception_ptr& error) {
  ErrorCode code = ErrorCode::Udf;
  int64_t retry_after_ms = -1;
  std::string text;
  try {
    std::rethrow_exception(error);
  } catch (const RetryAfter& e) {
    code = e.code();
    retry_after_ms = e.delay().count();
    text = e.what();
  } catch (const Error& e) {
    code = e.code();
    text = e.what();
  } catch (const std::exception& e) {
    text = e.what();
  } catch (...) {
    text = "unknown exception (not derived from std::exception)";
  }
  process::MessageWriter out;
  out.begin(process::Op::Failed);
  out.put(key);
  out.put(static_cast<uint8_t>(code));
  out.put_string(std::string_view(text).substr(0, kMaxErrorBytes));
  out.put(retry_after_ms);
  return out.bytes();
}

void raise_failure(process::MessageReader& in, int rank) {
  const auto code = static_cast<ErrorCode>(in.get<uint8_t>());
  const std::string_view said = in.get_string();
  const bool named = rank < 0 || said.starts_with("rank ");
  const std::string text =
      named ? std::string(said) : "rank " + std::to_string(rank) + ": " + std::string(said);
  const auto retry_after_ms = in.get<int64_t>();
  if (retry_after_ms >= 0) throw RetryAfter(std::chrono::milliseconds(retry_after_ms), text);
  throw_error(code, text);
}

}  // namespace ember::dist
