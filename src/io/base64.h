// Base64 (RFC 4648, with padding): how binary values are written to JSON.
#pragma once

#include <string>
#include <string_view>

namespace ember {

/// Appends the base64 text of `bytes` to `out`.
void append_base64(std::string& out, std::string_view bytes);

}  // namespace ember
