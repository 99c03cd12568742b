// ArrowSchema format strings to ember types; see arrow_c_schema.h and the format table of
// https://arrow.apache.org/docs/format/CDataInterface.html.
#include "io/arrow/arrow_c_schema.h"

#include <string>
#include <utility>

#include "ember/error.h"

namespace ember::arrow_ipc {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

/// Multiplier and divisor from the unit letter (s, m, u, n) to microseconds.
std::pair<int64_t, int64_t> to_micros(char unit) {
  switch (unit) {
    case 's':
      return {1000000, 1};
    case 'm':
      return {1000, 1};
    case 'n':
      return {1, 1000};
    default:
      return {1, 1};
  }
}

/// Bits and sign of an integer format letter; {0, false} for another format.
std::pair<int, bool> integer_format(const std::string& f) {
  if (f.size() != 1) return {0, false};
  switch (f[0]) {
    case 'c':
      return {8, true};
    case 'C':
      return {8, false};
    case 's':
      return {16, true};
    case 'S':
      return {16, false};
    case 'i':
      return {32, true};
    case 'I':
      return {32, false};
    case 'l':
      return {64, true};
    case 'L':
      return {64, false};
    default:
      return {0, false};
  }
}

class Mapper {
 public:
  explicit Mapper(CSchema& out) : out_(out) {}

  ArrowField field(const ArrowSchema& s, const std::string& top, int depth) {
    const std::string f = s.format ? s.format : "";
    if (depth > 64) throw malformed(top, f, "nested more than 64 levels deep");
    if (s.dictionary != nullptr) return dictionary_encoded(s, top, depth);
    ArrowField out;
    out.name = top;
    if (!plain(f, out) && !temporal(f, out) && !nested(s, f, out, top, depth))
      throw InvalidArgument("column '" + top + "' has the Arrow format '" + f + "' (" +
                            unsupported(f) + "), which ember does not read");
    return out;
  }

 private:
  static InvalidArgument malformed(const std::string& top, const std::string& f,
                                   const std::string& what) {
    return InvalidArgument("column '" + top + "': a malformed Arrow schema (format '" + f +
                           "'): " + what);
  }

  static std::string unsupported(const std::string& f) {
    if (starts_with(f, "+u")) return "a union";
    if (starts_with(f, "ti")) return "an interval";
    if (f == "+r") return "run-end encoded";
    return "an unknown format";
  }

  // The indices' integer type is the field's format; the values' type is its dictionary's.
  ArrowField dictionary_encoded(const ArrowSchema& s, const std::string& top, int depth) {
    const std::string f = s.format ? s.format : "";
    const auto [bits, is_signed] = integer_format(f);
    if (bits == 0) throw malformed(top, f, "dictionary indices that are not integers");
    ArrowField values = field(*s.dictionary, top, depth + 1);
    ArrowField out = values;
    out.dictionary = next_id_++;
    out.index_bytes = bits / 8;
    out.index_signed = is_signed;
    out_.dictionary_values.emplace(*out.dictionary, std::move(values));
    return out;
  }

  // Types of no children and no unit.
  static bool plain(const std::string& f, ArrowField& out) {
    if (const auto [bits, is_signed] = integer_format(f); bits != 0) {
      set_integer(out, bits, is_signed);
      return true;
    }
    if (f == "n") {
      out.stored = Stored::Null;
    } else if (f == "b") {
      out.type = boolean();
    } else if (f == "e" || f == "f") {
      out.type = float32();
      if (f == "e") out.stored = Stored::Half;
    } else if (f == "g") {
      out.type = float64();
    } else if (f == "u" || f == "U" || f == "vu") {
      out.type = utf8();
    } else if (f == "z" || f == "Z" || f == "vz") {
      out.type = binary();
    } else if (starts_with(f, "w:")) {
      out.type = binary();
      out.stored = Stored::FixedBinary;
      out.stored_bytes = std::stoi(f.substr(2));
      if (out.stored_bytes < 0) return false;
    } else {
      return decimal(f, out);
    }
    if (f == "U" || f == "Z") out.stored = Stored::Large;
    if (f == "vu" || f == "vz") out.stored = Stored::View;
    return true;
  }

  // d:precision,scale[,bits]: as float64, as the IPC reader reads decimals.
  static bool decimal(const std::string& f, ArrowField& out) {
    if (!starts_with(f, "d:")) return false;
    const size_t comma = f.find(',');
    if (comma == std::string::npos) return false;
    const size_t second = f.find(',', comma + 1);
    const int scale = std::stoi(f.substr(comma + 1, second - comma - 1));
    const int bits = second == std::string::npos ? 128 : std::stoi(f.substr(second + 1));
    if ((bits != 128 && bits != 256) || scale < -76 || scale > 76) return false;
    out.type = float64();
    out.stored = Stored::Decimal;
    out.stored_bytes = bits / 8;
    out.scale = scale;
    return true;
  }

  // Dates, times, timestamps (the zone after the colon dropped, as the IPC reader drops it)
  // and durations, in ember's units.
  static bool temporal(const std::string& f, ArrowField& out) {
    if (f == "tdD") {
      out.type = date32();
    } else if (f == "tdm") {
      set_scaled(out, timestamp_us(), 8, to_micros('m'));
    } else if (f == "tts" || f == "ttm") {
      set_scaled(out, int64(), 4, to_micros(f[2]));
    } else if (f == "ttu" || f == "ttn") {
      set_scaled(out, int64(), 8, to_micros(f[2]));
    } else if (f.size() >= 4 && starts_with(f, "ts") && f[3] == ':' &&
               std::string("smun").find(f[2]) != std::string::npos) {
      set_scaled(out, timestamp_us(), 8, to_micros(f[2]));
    } else if (f.size() == 3 && starts_with(f, "tD") &&
               std::string("smun").find(f[2]) != std::string::npos) {
      set_scaled(out, int64(), 8, to_micros(f[2]));
    } else {
      return false;
    }
    return true;
  }

  bool nested(const ArrowSchema& s, const std::string& f, ArrowField& out, const std::string& top,
              int depth) {
    if (f.empty() || f[0] != '+' || starts_with(f, "+u") || f == "+r") return false;
    if (s.n_children < 0 || (s.n_children > 0 && s.children == nullptr))
      throw malformed(top, f, "a bad child count");
    for (int64_t i = 0; i < s.n_children; ++i) {
      if (s.children[i] == nullptr) throw malformed(top, f, "a missing child");
      out.children.push_back(field(*s.children[i], top, depth + 1));
    }
    if (f == "+s") {
      std::vector<std::string> names;
      for (int64_t i = 0; i < s.n_children; ++i)
        names.emplace_back(s.children[i]->name ? s.children[i]->name : "");
      out.type = struct_(struct_fields(std::move(names), out.children));
      return true;
    }
    if (out.children.size() != 1) throw malformed(top, f, "not one child");
    const DataType& item = out.children[0].type;
    if (f == "+m") {
      try {
        set_map(out);
      } catch (const ParseError& e) {
        throw malformed(top, f, e.what());
      }
    } else if (f == "+l" || f == "+L") {
      out.type = list(item);
      if (f == "+L") out.stored = Stored::Large;
    } else if (f == "+vl" || f == "+vL") {
      out.type = list(item);
      out.stored = Stored::ListView;
      out.stored_bytes = f == "+vl" ? 4 : 8;
    } else if (starts_with(f, "+w:")) {
      const int size = std::stoi(f.substr(3));
      if (size < 1) throw malformed(top, f, "a list size below 1");
      out.type = fixed_size_list(item, size);
    } else {
      return false;
    }
    return true;
  }

  CSchema& out_;
  int64_t next_id_ = 0;
};

}  // namespace

CSchema map_c_schema(const ArrowSchema& record) {
  const std::string f = record.format ? record.format : "";
  if (f != "+s")
    throw InvalidArgument("an Arrow stream of '" + f +
                          "' arrays; ember reads streams of struct arrays (record batches)");
  CSchema out;
  Mapper mapper(out);
  for (int64_t i = 0; i < record.n_children; ++i) {
    const ArrowSchema* c = record.children[i];
    const std::string name = c->name ? c->name : "";
    try {
      out.fields.push_back(mapper.field(*c, name, 0));
    } catch (const std::invalid_argument&) {  // std::stoi on a malformed width or size
      throw InvalidArgument("column '" + name + "': a malformed Arrow format");
    } catch (const std::out_of_range&) {
      throw InvalidArgument("column '" + name + "': a malformed Arrow format");
    }
  }
  return out;
}

}  // namespace ember::arrow_ipc
