// Text kernels: one loop per function over the offsets and characters of a utf8 column. ASCII
// rows take byte-wise fast paths; other rows are decoded code point by code point (utf8proc).
#include "expr/string_kernels.h"

#include <utf8proc.h>

#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "ember/error.h"
#include "expr/expr_text.h"
#include "expr/kernel_input.h"
#include "expr/utf8_output.h"

namespace ember {

namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

int64_t code_points(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += !is_continuation(c);
  return n;
}

// Byte position of code point `k` of `s` (s.size() when past the end).
size_t byte_of_code_point(std::string_view s, int64_t k) {
  size_t i = 0;
  for (; i < s.size(); ++i) {
    if (!is_continuation(static_cast<unsigned char>(s[i])) && k-- == 0) return i;
  }
  return s.size();
}

bool is_ascii(std::string_view s) {
  unsigned char any = 0;
  for (unsigned char c : s) any |= c;
  return any < 0x80;
}

// Appends `s` with every code point mapped by `map` (utf8proc_tolower or utf8proc_toupper).
void append_case_mapped(std::string& out, std::string_view s,
                        utf8proc_int32_t (*map)(utf8proc_int32_t)) {
  if (is_ascii(s)) {
    const bool lower = map == utf8proc_tolower;
    for (char c : s) {
      const bool change = lower ? (c >= 'A' && c <= 'Z') : (c >= 'a' && c <= 'z');
      out.push_back(change ? char(c ^ 0x20) : c);
    }
    return;
  }
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = utf8proc_ssize_t(s.size());
  while (left > 0) {
    utf8proc_int32_t cp;
    utf8proc_ssize_t len = utf8proc_iterate(p, left, &cp);
    if (len <= 0) {  // not UTF-8: the byte is kept as it is
      out.push_back(char(*p));
      ++p;
      --left;
      continue;
    }
    utf8proc_uint8_t buf[4];
    out.append(reinterpret_cast<const char*>(buf), size_t(utf8proc_encode_char(map(cp), buf)));
    p += len;
    left -= len;
  }
}

std::string_view param_text(const ExprNode& e, size_t i) {
  return std::get<std::string>(e.params[i]);
}
int64_t param_int(const ExprNode& e, size_t i) { return std::get<int64_t>(e.params[i]); }

// Runs `row(out, text)` for every row; null rows get an empty value (the validity hides them).
template <class Row>
Column map_text(const Column& text, size_t bytes, Row row) {
  const kernel::Utf8Read read{text.offsets(), text.chars()};
  Utf8Output out(text.size(), bytes);
  for (int64_t i = 0; i < text.size(); ++i) {
    if (!text.is_null(i)) row(out.chars(), read(i));
    out.end_row();
  }
  return out.finish(utf8(), same_validity(text));
}

int64_t text_bytes(const Column& t) {
  return t.size() ? t.offsets()[t.size()] - t.offsets()[0] : 0;
}

template <class Pred>
Column text_predicate(const Column& text, Pred pred) {
  const kernel::Utf8Read read{text.offsets(), text.chars()};
  auto bits = kernel::bits_where(text.size(), [&](int64_t i) { return pred(read(i)); });
  return Column::from_buffers(boolean(), text.size(), -1, same_validity(text), bits);
}

// str_lower / str_upper of a column whose characters are all ASCII: ASCII case mapping keeps
// every length, so it is one pass over all the characters and the offsets rebased, with no
// per-row work. nullopt when a byte is not ASCII (the per-row path decodes those rows).
std::optional<Column> ascii_case_mapped(const Column& text, bool lower) {
  const int64_t n = text.size();
  const int32_t* o = text.offsets();
  const int64_t first = o[0], bytes = int64_t(o[n]) - first;
  const auto* src = reinterpret_cast<const unsigned char*>(text.chars()) + first;
  unsigned char any = 0;
  for (int64_t i = 0; i < bytes; ++i) any |= src[i];
  if (any >= 0x80) return std::nullopt;
  auto chars = detail::BufferAccess::allocate_uninitialized(bytes);
  auto* dst = detail::BufferAccess::mutable_data(*chars);
  const unsigned char from = lower ? 'A' : 'a';
  for (int64_t i = 0; i < bytes; ++i) {
    const unsigned char c = src[i];
    dst[i] = static_cast<unsigned char>(c - from) < 26 ? c ^ 0x20 : c;
  }
  auto offsets = detail::BufferAccess::allocate_uninitialized((n + 1) * 4);
  auto* rebased = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets));
  for (int64_t i = 0; i <= n; ++i) rebased[i] = o[i] - int32_t(first);
  return Column::from_buffers(utf8(), n, -1, same_validity(text), std::move(offsets),
                              std::move(chars));
}

// str_contains: one search through all the characters at once (memmem's vector loop runs
// over long stretches instead of being set up again per row); a hit marks its row when it lies
// wholly inside it, and the search goes on from the next row.
Column containing(const Column& text, std::string_view part) {
  const int64_t n = text.size();
  if (part.empty()) {
    return Column::from_buffers(boolean(), n, -1, same_validity(text),
                                kernel::bits_where(n, [](int64_t) { return true; }));
  }
  auto bits = Buffer::allocate(bitmap::bytes_for(n));
  uint8_t* b = detail::BufferAccess::mutable_data(*bits);
  const int32_t* o = text.offsets();
  const char* base = text.chars();
  const char* at = base + o[0];
  const char* end = base + o[n];
  const auto m = int64_t(part.size());
  int64_t row = 0;
  while (end - at >= m) {
    const auto* hit =
        static_cast<const char*>(memmem(at, size_t(end - at), part.data(), part.size()));
    if (hit == nullptr) break;
    const int64_t pos = hit - base;
    while (o[row + 1] <= pos) ++row;  // the row that holds the hit's first byte
    if (pos + m <= o[row + 1]) {
      set_bit(b, row);
      at = base + o[row + 1];
    } else {
      at = hit + 1;  // it runs into the next row: look again from its second byte
    }
  }
  return Column::from_buffers(boolean(), n, -1, same_validity(text), std::move(bits));
}

Column lengths(const Column& text) {
  const kernel::Utf8Read read{text.offsets(), text.chars()};
  auto out = detail::BufferAccess::allocate_uninitialized(text.size() * 8);
  auto* d = reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*out));
  for (int64_t i = 0; i < text.size(); ++i) d[i] = code_points(read(i));
  return Column::from_buffers(int64(), text.size(), -1, same_validity(text), out);
}

void append_replaced(std::string& out, std::string_view s, std::string_view from,
                     std::string_view to) {
  if (from.empty()) {
    out.append(s);
    return;
  }
  size_t at = 0;
  for (size_t hit; (hit = s.find(from, at)) != std::string_view::npos; at = hit + from.size()) {
    out.append(s.substr(at, hit - at));
    out.append(to);
  }
  out.append(s.substr(at));
}

void append_slice(std::string& out, std::string_view s, int64_t start, int64_t length) {
  if (start < 0) start = std::max<int64_t>(0, code_points(s) + start);
  const size_t from = byte_of_code_point(s, start);
  const std::string_view rest = s.substr(from);
  out.append(rest.substr(0, byte_of_code_point(rest, length)));
}

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

void append_stripped(std::string& out, std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  out.append(s.substr(b, e - b));
}

void append_padded(std::string& out, std::string_view s, int64_t width, std::string_view fill,
                   bool at_end) {
  const int64_t missing = width - code_points(s);
  if (at_end) out.append(s);
  for (int64_t k = 0; k < missing; ++k) out.append(fill);
  if (!at_end) out.append(s);
}

Column split(const Column& text, std::string_view sep) {
  const kernel::Utf8Read read{text.offsets(), text.chars()};
  Utf8Output items(text.size() * 2, size_t(text_bytes(text)));
  std::vector<int32_t> offsets{0};
  offsets.reserve(size_t(text.size()) + 1);
  int32_t count = 0;
  for (int64_t i = 0; i < text.size(); ++i) {
    const std::string_view s = read(i);
    if (!text.is_null(i) && sep.empty()) {
      for (size_t b = 0; b < s.size(); ++count) {
        size_t e = b + 1;
        while (e < s.size() && is_continuation(static_cast<unsigned char>(s[e]))) ++e;
        items.append(s.substr(b, e - b));
        items.end_row();
        b = e;
      }
    } else if (!text.is_null(i)) {
      size_t at = 0;
      for (size_t hit; (hit = s.find(sep, at)) != std::string_view::npos; at = hit + sep.size()) {
        items.append(s.substr(at, hit - at));
        items.end_row();
        ++count;
      }
      items.append(s.substr(at));
      items.end_row();
      ++count;
    }
    offsets.push_back(count);
  }
  auto off = detail::BufferAccess::allocate_uninitialized(int64_t(offsets.size() * 4));
  std::memcpy(detail::BufferAccess::mutable_data(*off), offsets.data(), offsets.size() * 4);
  return Column::nested(list(utf8()), text.size(), -1, same_validity(text), off,
                        items.finish(utf8(), nullptr));
}

}  // namespace

void check_text_params(const ExprNode& e, const ExprNode& root) {
  if (e.function == FunctionId::StrSlice && param_int(e, 1) < 0) {
    throw InvalidArgument("str_slice: the length must not be negative in " + to_string(root));
  }
  if (e.function == FunctionId::StrPad) {
    if (param_int(e, 0) < 0) {
      throw InvalidArgument("str_pad: the width must not be negative in " + to_string(root));
    }
    if (code_points(param_text(e, 1)) != 1) {
      throw InvalidArgument("str_pad: the fill must be one character in " + to_string(root));
    }
  }
}

Column string_function(const ExprNode& e, const Column& text) {
  const size_t bytes = size_t(text_bytes(text));
  switch (e.function) {
    case FunctionId::StrLength:
      return lengths(text);
    case FunctionId::StrLower:
    case FunctionId::StrUpper: {
      if (auto ascii = ascii_case_mapped(text, e.function == FunctionId::StrLower)) return *ascii;
      auto map = e.function == FunctionId::StrLower ? utf8proc_tolower : utf8proc_toupper;
      return map_text(text, bytes,
                      [map](std::string& o, std::string_view s) { append_case_mapped(o, s, map); });
    }
    case FunctionId::StrContains:
      return containing(text, param_text(e, 0));
    case FunctionId::StrStartsWith: {
      const std::string_view p = param_text(e, 0);
      return text_predicate(text, [p](std::string_view s) { return s.starts_with(p); });
    }
    case FunctionId::StrEndsWith: {
      const std::string_view p = param_text(e, 0);
      return text_predicate(text, [p](std::string_view s) { return s.ends_with(p); });
    }
    case FunctionId::StrReplace: {
      const std::string_view from = param_text(e, 0), to = param_text(e, 1);
      return map_text(text, bytes,
                      [&](std::string& o, std::string_view s) { append_replaced(o, s, from, to); });
    }
    case FunctionId::StrSplit:
      return split(text, param_text(e, 0));
    case FunctionId::StrSlice: {
      const int64_t start = param_int(e, 0), length = param_int(e, 1);
      return map_text(text, bytes, [&](std::string& o, std::string_view s) {
        append_slice(o, s, start, length);
      });
    }
    case FunctionId::StrStrip:
      return map_text(text, bytes, append_stripped);
    case FunctionId::StrPad: {
      const int64_t width = param_int(e, 0);
      const std::string_view fill = param_text(e, 1);
      const bool at_end = std::get<bool>(e.params[2]);
      return map_text(text, bytes, [&](std::string& o, std::string_view s) {
        append_padded(o, s, width, fill, at_end);
      });
    }
    default:
      throw Error(std::string("internal: not a text kernel in ") + to_string(e));
  }
}

Column concat_texts(const std::vector<Column>& parts, int64_t n) {
  std::vector<kernel::Utf8Read> reads;
  size_t bytes = 0;
  std::shared_ptr<Buffer> validity;
  for (const Column& p : parts) {
    reads.push_back({p.offsets(), p.chars()});
    bytes += size_t(text_bytes(p));
    validity =
        bitmap::and_of(validity ? validity->data() : nullptr, 0, p.validity_bits(), p.offset(), n);
  }
  Utf8Output out(n, bytes);
  for (int64_t i = 0; i < n; ++i) {
    for (const auto& r : reads) out.append(r(i));
    out.end_row();
  }
  return out.finish(utf8(), std::move(validity));
}

}  // namespace ember
