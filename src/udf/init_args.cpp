// InitArgs: lookup with actionable errors, and a compact binary form that crosses processes.
//
// Encoding (all integers little-endian): u32 count, then per entry u32 key length, key bytes,
// u8 type tag, value (bool: u8; int64 and float64: 8 bytes; utf8: u32 length + bytes).
#include <bit>
#include <cstring>
#include <string>

#include "ember/udf.h"
#include "udf/init_args_codec.h"

namespace ember {
namespace {

/// Wire tags equal the Value alternative indices, so encoding is `value.index()`.
enum class Tag : uint8_t { Null = 0, Bool = 1, Int64 = 2, Float64 = 3, Utf8 = 4 };
static_assert(std::is_same_v<std::variant_alternative_t<1, Value>, bool> &&
              std::is_same_v<std::variant_alternative_t<2, Value>, int64_t> &&
              std::is_same_v<std::variant_alternative_t<3, Value>, double> &&
              std::is_same_v<std::variant_alternative_t<4, Value>, std::string>);

template <class T>
void put_le(std::string& out, T value) {
  for (size_t i = 0; i < sizeof(T); ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void put_bytes(std::string& out, std::string_view bytes) {
  if (bytes.size() > UINT32_MAX) throw InvalidArgument("init arg too large to serialise");
  put_le<uint32_t>(out, static_cast<uint32_t>(bytes.size()));
  out.append(bytes);
}

/// Bounds-checked reader over untrusted bytes: every overrun is InvalidArgument.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  template <class T>
  T le(const char* what) {
    need(sizeof(T), what);
    T value = 0;
    for (size_t i = 0; i < sizeof(T); ++i)
      value |= static_cast<T>(static_cast<uint8_t>(bytes_[pos_ + i])) << (8 * i);
    pos_ += sizeof(T);
    return value;
  }
  std::string bytes(const char* what) {
    auto n = le<uint32_t>(what);
    need(n, what);
    std::string s(bytes_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  bool at_end() const { return pos_ == bytes_.size(); }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  void need(size_t n, const char* what) const {
    if (bytes_.size() - pos_ < n)
      throw InvalidArgument("corrupt serialised init args: truncated " + std::string(what) +
                            " at byte " + std::to_string(pos_) + " of " +
                            std::to_string(bytes_.size()));
  }
  std::string_view bytes_;
  size_t pos_ = 0;
};

Value read_value(Reader& in, const std::string& key) {
  auto tag = static_cast<Tag>(in.le<uint8_t>("type tag"));
  switch (tag) {
    case Tag::Null:
      return Value{};
    case Tag::Bool: {
      auto b = in.le<uint8_t>("bool");
      if (b > 1)
        throw InvalidArgument("corrupt serialised init args: bool '" + key + "' is " +
                              std::to_string(b));
      return Value{b == 1};
    }
    case Tag::Int64:
      return Value{static_cast<int64_t>(in.le<uint64_t>("int64"))};
    case Tag::Float64:
      return Value{std::bit_cast<double>(in.le<uint64_t>("float64"))};
    case Tag::Utf8:
      return Value{in.bytes("string")};
  }
  throw InvalidArgument("corrupt serialised init args: unknown type tag " +
                        std::to_string(static_cast<int>(tag)) + " for '" + key + "'");
}

}  // namespace

const Value& InitArgs::at(std::string_view key, const char* /*wanted*/) const {
  auto it = items_.find(std::string(key));
  if (it != items_.end()) return it->second;
  std::string keys;
  for (const auto& [k, v] : items_) keys += (keys.empty() ? "" : ", ") + k;
  throw InvalidArgument("missing init arg '" + std::string(key) +
                        "' (udf init args: " + (keys.empty() ? "none" : keys) + ")");
}

std::string serialize_init_args(const InitArgs& args) {
  std::string out;
  put_le<uint32_t>(out, static_cast<uint32_t>(args.items().size()));
  for (const auto& [key, value] : args.items()) {
    if (value.index() > 4) {
      throw InvalidArgument("init arg '" + key + "' is a " + type_of(value).to_string() +
                            "; init args are bool, integers, float64 or strings");
    }
    put_bytes(out, key);
    out.push_back(static_cast<char>(static_cast<Tag>(value.index())));
    if (auto* b = std::get_if<bool>(&value)) out.push_back(*b ? 1 : 0);
    if (auto* i = std::get_if<int64_t>(&value)) put_le<uint64_t>(out, static_cast<uint64_t>(*i));
    if (auto* d = std::get_if<double>(&value)) put_le<uint64_t>(out, std::bit_cast<uint64_t>(*d));
    if (auto* s = std::get_if<std::string>(&value)) put_bytes(out, *s);
  }
  return out;
}

InitArgs deserialize_init_args(std::string_view bytes) {
  Reader in(bytes);
  auto count = in.le<uint32_t>("count");
  // Each entry takes at least 5 bytes; a larger count is corrupt, not a reason to allocate.
  if (count > in.remaining() / 5)
    throw InvalidArgument("corrupt serialised init args: " + std::to_string(count) +
                          " entries cannot fit in " + std::to_string(bytes.size()) + " bytes");
  std::map<std::string, Value> items;
  for (uint32_t i = 0; i < count; ++i) {
    std::string key = in.bytes("key");
    Value value = read_value(in, key);
    if (!items.emplace(std::move(key), std::move(value)).second)
      throw InvalidArgument("corrupt serialised init args: a key appears twice");
  }
  if (!in.at_end())
    throw InvalidArgument("corrupt serialised init args: " + std::to_string(in.remaining()) +
                          " trailing bytes");
  return InitArgs(std::move(items));
}

}  // namespace ember
