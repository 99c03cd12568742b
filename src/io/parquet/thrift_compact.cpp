// The compact protocol: varints, zigzag integers, delta-encoded field ids.
#include "io/parquet/thrift_compact.h"

#include <cstring>
#include <stdexcept>

namespace ember::thrift {

uint8_t CompactReader::byte() {
  if (p_ >= end_) throw std::runtime_error("metadata ends early");
  return *p_++;
}

uint64_t CompactReader::varint() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    const uint8_t b = byte();
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  throw std::runtime_error("malformed varint in metadata");
}

void CompactReader::begin_struct() {
  if (depth_ >= 63) throw std::runtime_error("metadata nests too deeply");
  stack_[depth_++] = last_id_;
  last_id_ = 0;
}

void CompactReader::end_struct() { last_id_ = depth_ > 0 ? stack_[--depth_] : 0; }

bool CompactReader::next_field(int16_t* id, uint8_t* type) {
  const uint8_t b = byte();
  if (b == kStop) return false;
  *type = b & 0x0f;
  const int delta = b >> 4;
  *id = delta ? static_cast<int16_t>(last_id_ + delta) : static_cast<int16_t>(read_int());
  last_id_ = *id;
  return true;
}

uint32_t CompactReader::list_header(uint8_t* elem_type) {
  const uint8_t b = byte();
  *elem_type = b & 0x0f;
  uint64_t n = b >> 4;
  if (n == 15) n = varint();
  if (n > static_cast<uint64_t>(end_ - p_)) throw std::runtime_error("list longer than metadata");
  return static_cast<uint32_t>(n);
}

std::string CompactReader::read_binary() {
  const uint64_t n = varint();
  if (n > static_cast<uint64_t>(end_ - p_)) throw std::runtime_error("string past metadata end");
  std::string s(reinterpret_cast<const char*>(p_), n);
  p_ += n;
  return s;
}

double CompactReader::read_double() {
  if (end_ - p_ < 8) throw std::runtime_error("metadata ends early");
  double d;
  std::memcpy(&d, p_, 8);
  p_ += 8;
  return d;
}

void CompactReader::skip(uint8_t type, int depth) {
  if (depth > 32) throw std::runtime_error("metadata nests too deeply");
  switch (type) {
    case kTrue:
    case kFalse:
      return;
    case kByte:
      byte();
      return;
    case kI16:
    case kI32:
    case kI64:
      varint();
      return;
    case kDouble:
      read_double();
      return;
    case kBinary:
      read_binary();
      return;
    case kList:
    case kSet: {
      uint8_t et;
      const uint32_t n = list_header(&et);
      for (uint32_t i = 0; i < n; ++i) {
        if (et == kTrue || et == kFalse)
          byte();  // booleans in lists take a byte each
        else
          skip(et, depth + 1);
      }
      return;
    }
    case kMap: {
      const uint64_t n = varint();
      if (n == 0) return;
      // Every entry takes at least a byte: a count past the metadata's end is corrupt (and
      // would otherwise loop for as long as it says).
      if (n > static_cast<uint64_t>(end_ - p_))
        throw std::runtime_error("map longer than metadata");
      const uint8_t kv = byte();
      // Booleans in a map take a byte each, as in a list.
      auto skip_element = [&](uint8_t t) {
        if (t == kTrue || t == kFalse)
          byte();
        else
          skip(t, depth + 1);
      };
      for (uint64_t i = 0; i < n; ++i) {
        skip_element(kv >> 4);
        skip_element(kv & 0x0f);
      }
      return;
    }
    case kStruct: {
      begin_struct();
      int16_t id;
      uint8_t t;
      while (next_field(&id, &t)) skip(t, depth + 1);
      end_struct();
      return;
    }
    default:
      throw std::runtime_error("unknown type " + std::to_string(type) + " in metadata");
  }
}

void CompactWriter::varint(uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

void CompactWriter::field(int16_t id, uint8_t type) {
  const int delta = id - last_id_;
  if (delta > 0 && delta <= 15) {
    out_.push_back(static_cast<char>((delta << 4) | type));
  } else {
    out_.push_back(static_cast<char>(type));
    int_value(id);
  }
  last_id_ = id;
}

void CompactWriter::boolean(int16_t id, bool v) { field(id, v ? kTrue : kFalse); }

void CompactWriter::begin_struct() {
  stack_[depth_++] = last_id_;
  last_id_ = 0;
}

void CompactWriter::end_struct() {
  out_.push_back(0);
  last_id_ = depth_ > 0 ? stack_[--depth_] : 0;
}

void CompactWriter::list_header(uint8_t elem_type, uint32_t size) {
  if (size < 15) {
    out_.push_back(static_cast<char>((size << 4) | elem_type));
  } else {
    out_.push_back(static_cast<char>(0xf0 | elem_type));
    varint(size);
  }
}

void CompactWriter::binary_value(std::string_view s) {
  varint(s.size());
  out_.append(s);
}

}  // namespace ember::thrift
