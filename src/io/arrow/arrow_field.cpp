// Arrow schema fields to ember types; see arrow_field.h. The rules follow the Parquet reader's:
// small integers widen, times are microseconds, decimals are float64.
#include "io/arrow/arrow_field.h"

#include <tuple>
#include <utility>

#include "ember/error.h"
#include "io/duplicate_column_names.h"

namespace ember::arrow_ipc {

namespace fb = org::apache::arrow::flatbuf;

namespace {

/// Multiplier and divisor from `unit` to microseconds.
std::pair<int64_t, int64_t> to_micros(fb::TimeUnit unit) {
  switch (unit) {
    case fb::TimeUnit::SECOND:
      return {1000000, 1};
    case fb::TimeUnit::MILLISECOND:
      return {1000, 1};
    case fb::TimeUnit::NANOSECOND:
      return {1, 1000};
    default:
      return {1, 1};
  }
}

void scaled(ArrowField& out, DataType type, int bytes, fb::TimeUnit unit) {
  set_scaled(out, std::move(type), bytes, to_micros(unit));
}

void read_dictionary(const fb::Field* f, ArrowField& out) {
  const fb::DictionaryEncoding* d = f->dictionary();
  if (!d) return;
  out.dictionary = d->id();
  if (const fb::Int* index = d->indexType()) {
    if (index->bitWidth() != 8 && index->bitWidth() != 16 && index->bitWidth() != 32 &&
        index->bitWidth() != 64)
      throw ParseError("dictionary indices of " + std::to_string(index->bitWidth()) + " bits");
    out.index_bytes = index->bitWidth() / 8;
    out.index_signed = index->is_signed();
  }
}

void map_int(const fb::Int* t, ArrowField& out) {
  const int bits = t ? t->bitWidth() : 0;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    throw ParseError("an integer type of " + std::to_string(bits) + " bits");
  set_integer(out, bits, t->is_signed());
}

/// The names of a struct's fields, as the file gives them.
std::vector<std::string> child_names(const fb::Field* f, size_t count) {
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) {
    const fb::Field* c = f->children()->Get(static_cast<flatbuffers::uoffset_t>(i));
    names.push_back(c->name() ? c->name()->str() : "");
  }
  return names;
}

}  // namespace

ArrowField map_field(const fb::Field* f, const std::string& top, int depth) {
  if (!f || depth > 8) throw ParseError("malformed schema");
  ArrowField out;
  out.name = top;
  auto unsupported = [&](const std::string& what) {
    return InvalidArgument("column '" + top + "' is " + what +
                           ", which ember does not read from Arrow IPC");
  };
  read_dictionary(f, out);
  auto child = [&]() {
    if (!f->children() || f->children()->size() != 1)
      throw ParseError("a list field without one child");
    out.children.push_back(map_field(f->children()->Get(0), top, depth + 1));
    return out.children.back().type;
  };
  auto struct_children = [&]() {
    if (f->children())
      for (const fb::Field* c : *f->children())
        out.children.push_back(map_field(c, top, depth + 1));
    return struct_fields(child_names(f, out.children.size()), out.children);
  };
  switch (f->type_type()) {
    case fb::Type::Null:
      out.stored = Stored::Null;
      break;
    case fb::Type::Bool:
      out.type = boolean();
      break;
    case fb::Type::Int:
      map_int(f->type_as_Int(), out);
      break;
    case fb::Type::FloatingPoint: {
      const auto* t = f->type_as_FloatingPoint();
      if (!t) throw ParseError("malformed floating point type");
      out.type = t->precision() == fb::Precision::DOUBLE ? float64() : float32();
      if (t->precision() == fb::Precision::HALF) out.stored = Stored::Half;
      break;
    }
    case fb::Type::Utf8:
      out.type = utf8();
      break;
    case fb::Type::Binary:
      out.type = binary();
      break;
    case fb::Type::LargeUtf8:
      out.type = utf8();
      out.stored = Stored::Large;
      break;
    case fb::Type::LargeBinary:
      out.type = binary();
      out.stored = Stored::Large;
      break;
    case fb::Type::Utf8View:
    case fb::Type::BinaryView:
      out.type = f->type_type() == fb::Type::Utf8View ? utf8() : binary();
      out.stored = Stored::View;
      break;
    case fb::Type::FixedSizeBinary: {
      const auto* t = f->type_as_FixedSizeBinary();
      if (!t || t->byteWidth() < 0) throw ParseError("malformed fixed-size binary type");
      out.type = binary();
      out.stored = Stored::FixedBinary;
      out.stored_bytes = t->byteWidth();
      break;
    }
    case fb::Type::Decimal: {
      const auto* t = f->type_as_Decimal();
      if (!t || (t->bitWidth() != 128 && t->bitWidth() != 256))
        throw unsupported("a decimal of " + std::to_string(t ? t->bitWidth() : 0) + " bits");
      out.type = float64();
      out.stored = Stored::Decimal;
      out.stored_bytes = t->bitWidth() / 8;
      // At most 76 digits fit in 256 bits: a scale past that is a corrupt type.
      if (t->scale() < -76 || t->scale() > 76)
        throw ParseError("a decimal scale of " + std::to_string(t->scale()));
      out.scale = t->scale();
      break;
    }
    case fb::Type::Timestamp: {
      // The zone, if any, is dropped: the values are UTC instants either way.
      const auto* t = f->type_as_Timestamp();
      if (!t) throw ParseError("malformed timestamp type");
      scaled(out, timestamp_us(), 8, t->unit());
      break;
    }
    case fb::Type::Date: {
      // date32 (days) as it is; date64 (milliseconds) as the instant it holds.
      const auto* t = f->type_as_Date();
      if (t && t->unit() == fb::DateUnit::DAY)
        out.type = date32();
      else
        scaled(out, timestamp_us(), 8, fb::TimeUnit::MILLISECOND);
      break;
    }
    case fb::Type::Time: {
      // As the Parquet reader reads TIME: int64 microseconds since midnight.
      const auto* t = f->type_as_Time();
      if (!t || (t->bitWidth() != 32 && t->bitWidth() != 64))
        throw ParseError("malformed time type");
      scaled(out, int64(), t->bitWidth() / 8, t->unit());
      break;
    }
    case fb::Type::Duration: {
      const auto* t = f->type_as_Duration();
      if (!t) throw ParseError("malformed duration type");
      scaled(out, int64(), 8, t->unit());  // int64 microseconds
      break;
    }
    case fb::Type::List:
      out.type = list(child());
      break;
    case fb::Type::LargeList:
      out.type = list(child());
      out.stored = Stored::Large;
      break;
    case fb::Type::ListView:
    case fb::Type::LargeListView:
      out.type = list(child());
      out.stored = Stored::ListView;
      out.stored_bytes = f->type_type() == fb::Type::ListView ? 4 : 8;
      break;
    case fb::Type::FixedSizeList: {
      const auto* t = f->type_as_FixedSizeList();
      if (!t || t->listSize() < 1) throw ParseError("malformed fixed-size list");
      out.type = fixed_size_list(child(), t->listSize());
      break;
    }
    case fb::Type::Struct_:
      out.type = struct_(struct_children());
      break;
    case fb::Type::Map:
      child();
      set_map(out);
      break;
    default:
      throw unsupported("of Arrow type " + std::string(fb::EnumNameType(f->type_type())));
  }
  return out;
}

void set_integer(ArrowField& out, int bits, bool is_signed) {
  // As the Parquet reader does: 8- and 16-bit integers widen to int32, uint32 to int64, and
  // uint64 reads as int64 when its values fit (checked as each batch is read).
  out.stored = Stored::Int;
  out.stored_bytes = bits / 8;
  out.int_unsigned = !is_signed;
  out.type = bits == 64 || (bits == 32 && out.int_unsigned) ? int64() : int32();
}

void set_scaled(ArrowField& out, DataType type, int bytes,
                std::pair<int64_t, int64_t> multiply_divide) {
  out.type = std::move(type);
  out.stored = Stored::Scaled;
  out.stored_bytes = bytes;
  std::tie(out.multiply, out.divide) = multiply_divide;
  // Microseconds in 64 bits need no conversion.
  if (bytes == 8 && out.multiply == 1 && out.divide == 1) out.stored = Stored::Plain;
}

std::vector<Field> struct_fields(std::vector<std::string> names,
                                 const std::vector<ArrowField>& children) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i].empty()) names[i] = "f" + std::to_string(i);
  names = rename_duplicate_columns(std::move(names));
  std::vector<Field> fields;
  for (size_t i = 0; i < children.size(); ++i) fields.push_back({names[i], children[i].type});
  return fields;
}

void set_map(ArrowField& out) {
  ArrowField& entries = out.children[0];
  if (entries.type.id() != TypeId::Struct || entries.children.size() != 2 || entries.dictionary)
    throw ParseError("a map whose child is not a struct of a key and a value");
  entries.type = struct_({{"key", entries.children[0].type}, {"value", entries.children[1].type}});
  out.type = map(entries.children[0].type, entries.children[1].type);
}

}  // namespace ember::arrow_ipc
