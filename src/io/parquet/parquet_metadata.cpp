// Footer and page-header (de)serialisation: one function per Thrift struct, unknown fields skipped.
#include "io/parquet/parquet_metadata.h"

#include <stdexcept>

#include "io/parquet/thrift_compact.h"

namespace ember::parquet {

namespace {

using thrift::CompactReader;
using thrift::CompactWriter;

// Calls f(id, type) for every field of the struct at the reader's position.
template <class F>
void for_fields(CompactReader& r, F&& f) {
  r.begin_struct();
  int16_t id;
  uint8_t type;
  while (r.next_field(&id, &type)) f(id, type);
  r.end_struct();
}

// Reads a list, calling f(elem_type) once per element.
template <class F>
void for_list(CompactReader& r, F&& f) {
  uint8_t et;
  const uint32_t n = r.list_header(&et);
  for (uint32_t i = 0; i < n; ++i) f(et);
}

int32_t i32(CompactReader& r) { return static_cast<int32_t>(r.read_int()); }

Logical read_logical(CompactReader& r) {
  Logical l;
  for_fields(r, [&](int16_t id, uint8_t t) {
    switch (id) {
      case 1:
        l.kind = Logical::kString;
        r.skip(t);
        break;
      case 2:
        l.kind = Logical::kMap;
        r.skip(t);
        break;
      case 3:
        l.kind = Logical::kList;
        r.skip(t);
        break;
      case 5:
        l.kind = Logical::kDecimal;
        for_fields(r, [&](int16_t f, uint8_t ft) {
          if (f == 1)
            l.scale = i32(r);
          else if (f == 2)
            l.precision = i32(r);
          else
            r.skip(ft);
        });
        break;
      case 6:
        l.kind = Logical::kDate;
        r.skip(t);
        break;
      case 7:
      case 8:
        // TIME and TIMESTAMP share their layout: isAdjustedToUTC, then the unit.
        l.kind = id == 7 ? Logical::kTime : Logical::kTimestamp;
        for_fields(r, [&](int16_t f, uint8_t ft) {
          if (f == 2) {
            for_fields(r, [&](int16_t u, uint8_t ut) {
              l.time_unit = u;
              r.skip(ut);
            });
          } else {
            r.skip(ft);
          }
        });
        break;
      case 10:
        l.kind = Logical::kInteger;
        for_fields(r, [&](int16_t f, uint8_t ft) {
          if (f == 1)  // bitWidth is an i8: a plain byte (8, 16, 32, 64), not a varint
            l.bit_width = ft == thrift::kByte ? r.read_byte() : static_cast<int>(r.read_int());
          else if (f == 2)
            l.is_signed = r.read_bool(ft);
          else
            r.skip(ft);
        });
        break;
      case 15:
        l.kind = Logical::kFloat16;
        r.skip(t);
        break;
      case 12:
        l.kind = Logical::kString;  // JSON is text
        r.skip(t);
        break;
      default:
        l.kind = Logical::kOther;
        r.skip(t);
    }
  });
  return l;
}

SchemaElement read_schema_element(CompactReader& r) {
  SchemaElement e;
  for_fields(r, [&](int16_t id, uint8_t t) {
    switch (id) {
      case 1:
        e.type = i32(r);
        break;
      case 2:
        e.type_length = i32(r);
        break;
      case 3:
        e.repetition = i32(r);
        break;
      case 4:
        e.name = r.read_binary();
        break;
      case 5:
        e.num_children = i32(r);
        break;
      case 6:
        e.converted = i32(r);
        break;
      case 7:
        e.scale = i32(r);
        break;
      case 8:
        e.precision = i32(r);
        break;
      case 10:
        e.logical = read_logical(r);
        break;
      default:
        r.skip(t);
    }
  });
  return e;
}

Statistics read_stats(CompactReader& r) {
  Statistics s;
  std::optional<std::string> legacy_min, legacy_max;
  for_fields(r, [&](int16_t id, uint8_t t) {
    switch (id) {
      case 1:
        legacy_max = r.read_binary();
        break;
      case 2:
        legacy_min = r.read_binary();
        break;
      case 3:
        s.null_count = r.read_int();
        break;
      case 5:
        s.max = r.read_binary();
        break;
      case 6:
        s.min = r.read_binary();
        break;
      default:
        r.skip(t);
    }
  });
  // The legacy fields use a signed byte order for strings: only numbers may rely on them.
  s.legacy_min = legacy_min;
  s.legacy_max = legacy_max;
  return s;
}

ColumnMeta read_column_meta(CompactReader& r) {
  ColumnMeta m;
  for_fields(r, [&](int16_t id, uint8_t t) {
    switch (id) {
      case 1:
        m.type = i32(r);
        break;
      case 2:
        for_list(r, [&](uint8_t) { m.encodings.push_back(i32(r)); });
        break;
      case 3:
        for_list(r, [&](uint8_t) { m.path.push_back(r.read_binary()); });
        break;
      case 4:
        m.codec = i32(r);
        break;
      case 5:
        m.num_values = r.read_int();
        break;
      case 6:
        m.total_uncompressed_size = r.read_int();
        break;
      case 7:
        m.total_compressed_size = r.read_int();
        break;
      case 9:
        m.data_page_offset = r.read_int();
        break;
      case 11:
        m.dictionary_page_offset = r.read_int();
        break;
      case 12:
        m.stats = read_stats(r);
        break;
      default:
        r.skip(t);
    }
  });
  return m;
}

RowGroup read_row_group(CompactReader& r) {
  RowGroup g;
  for_fields(r, [&](int16_t id, uint8_t t) {
    switch (id) {
      case 1:
        for_list(r, [&](uint8_t) {
          bool has_meta = false;
          for_fields(r, [&](int16_t cid, uint8_t ct) {
            if (cid == 3) {
              g.columns.push_back(read_column_meta(r));
              has_meta = true;
            } else {
              r.skip(ct);
            }
          });
          if (!has_meta) throw std::runtime_error("a column chunk has no metadata");
        });
        break;
      case 2:
        g.total_byte_size = r.read_int();
        break;
      case 3:
        g.num_rows = r.read_int();
        break;
      default:
        r.skip(t);
    }
  });
  return g;
}

}  // namespace

FileMetaData read_file_metadata(const uint8_t* data, size_t size) {
  CompactReader r(data, size);
  FileMetaData m;
  for_fields(r, [&](int16_t id, uint8_t t) {
    switch (id) {
      case 1:
        m.version = i32(r);
        break;
      case 2:
        for_list(r, [&](uint8_t) { m.schema.push_back(read_schema_element(r)); });
        break;
      case 3:
        m.num_rows = r.read_int();
        break;
      case 4:
        for_list(r, [&](uint8_t) { m.row_groups.push_back(read_row_group(r)); });
        break;
      case 6:
        m.created_by = r.read_binary();
        break;
      default:
        r.skip(t);
    }
  });
  return m;
}

PageHeader read_page_header(const uint8_t* data, size_t size, size_t* consumed) {
  CompactReader r(data, size);
  PageHeader h;
  for_fields(r, [&](int16_t id, uint8_t t) {
    switch (id) {
      case 1:
        h.type = i32(r);
        break;
      case 2:
        h.uncompressed_size = i32(r);
        break;
      case 3:
        h.compressed_size = i32(r);
        break;
      case 5:
      case 7:
        for_fields(r, [&](int16_t f, uint8_t ft) {
          if (f == 1)
            h.num_values = i32(r);
          else if (f == 2)
            h.encoding = i32(r);
          else
            r.skip(ft);
        });
        break;
      case 8:
        for_fields(r, [&](int16_t f, uint8_t ft) {
          switch (f) {
            case 1:
              h.num_values = i32(r);
              break;
            case 2:
              h.num_nulls = i32(r);
              break;
            case 3:
              h.num_rows = i32(r);
              break;
            case 4:
              h.encoding = i32(r);
              break;
            case 5:
              h.def_levels_bytes = i32(r);
              break;
            case 6:
              h.rep_levels_bytes = i32(r);
              break;
            case 7:
              h.is_compressed = r.read_bool(ft);
              break;
            default:
              r.skip(ft);
          }
        });
        break;
      default:
        r.skip(t);
    }
  });
  *consumed = r.consumed();
  return h;
}

namespace {

void write_logical(CompactWriter& w, const Logical& l) {
  w.begin_struct();
  switch (l.kind) {
    case Logical::kString:
      w.field(1, thrift::kStruct), w.begin_struct(), w.end_struct();
      break;
    case Logical::kMap:
      w.field(2, thrift::kStruct), w.begin_struct(), w.end_struct();
      break;
    case Logical::kList:
      w.field(3, thrift::kStruct), w.begin_struct(), w.end_struct();
      break;
    case Logical::kDate:
      w.field(6, thrift::kStruct), w.begin_struct(), w.end_struct();
      break;
    case Logical::kTime:
    case Logical::kTimestamp:
      w.field(l.kind == Logical::kTime ? 7 : 8, thrift::kStruct);
      w.begin_struct();
      w.boolean(1, true);
      w.field(2, thrift::kStruct);
      w.begin_struct();
      w.field(static_cast<int16_t>(l.time_unit), thrift::kStruct), w.begin_struct(), w.end_struct();
      w.end_struct();
      w.end_struct();
      break;
    case Logical::kInteger:
      w.field(10, thrift::kStruct);
      w.begin_struct();
      w.field(1, thrift::kByte);
      w.out().push_back(static_cast<char>(l.bit_width));
      w.boolean(2, l.is_signed);
      w.end_struct();
      break;
    default:
      break;
  }
  w.end_struct();
}

void write_stats(CompactWriter& w, const Statistics& s) {
  w.begin_struct();
  if (s.null_count) w.i64(3, *s.null_count);
  if (s.max) w.binary(5, *s.max);
  if (s.min) w.binary(6, *s.min);
  w.end_struct();
}

}  // namespace

std::string write_file_metadata(const FileMetaData& m) {
  CompactWriter w;
  w.begin_struct();
  w.i32(1, m.version);
  w.field(2, thrift::kList);
  w.list_header(thrift::kStruct, static_cast<uint32_t>(m.schema.size()));
  for (const SchemaElement& e : m.schema) {
    w.begin_struct();
    if (e.type) w.i32(1, *e.type);
    if (e.type_length) w.i32(2, e.type_length);
    w.i32(3, e.repetition);
    w.binary(4, e.name);
    if (e.num_children) w.i32(5, e.num_children);
    if (e.converted) w.i32(6, *e.converted);
    if (e.logical.kind != Logical::kNone) {
      w.field(10, thrift::kStruct);
      write_logical(w, e.logical);
    }
    w.end_struct();
  }
  w.i64(3, m.num_rows);
  w.field(4, thrift::kList);
  w.list_header(thrift::kStruct, static_cast<uint32_t>(m.row_groups.size()));
  for (const RowGroup& g : m.row_groups) {
    w.begin_struct();
    w.field(1, thrift::kList);
    w.list_header(thrift::kStruct, static_cast<uint32_t>(g.columns.size()));
    for (const ColumnMeta& c : g.columns) {
      w.begin_struct();
      w.i64(2, c.dictionary_page_offset.value_or(c.data_page_offset));
      w.field(3, thrift::kStruct);
      w.begin_struct();
      w.i32(1, c.type);
      w.field(2, thrift::kList);
      w.list_header(thrift::kI32, static_cast<uint32_t>(c.encodings.size()));
      for (int32_t e : c.encodings) w.int_value(e);
      w.field(3, thrift::kList);
      w.list_header(thrift::kBinary, static_cast<uint32_t>(c.path.size()));
      for (const std::string& p : c.path) w.binary_value(p);
      w.i32(4, c.codec);
      w.i64(5, c.num_values);
      w.i64(6, c.total_uncompressed_size);
      w.i64(7, c.total_compressed_size);
      w.i64(9, c.data_page_offset);
      if (c.dictionary_page_offset) w.i64(11, *c.dictionary_page_offset);
      w.field(12, thrift::kStruct);
      write_stats(w, c.stats);
      w.end_struct();
      w.end_struct();
    }
    w.i64(2, g.total_byte_size);
    w.i64(3, g.num_rows);
    w.end_struct();
  }
  w.binary(6, m.created_by);
  w.end_struct();
  return std::move(w.out());
}

std::string write_page_header(const PageHeader& h) {
  CompactWriter w;
  w.begin_struct();
  w.i32(1, h.type);
  w.i32(2, h.uncompressed_size);
  w.i32(3, h.compressed_size);
  if (h.type == kDictionaryPage) {
    w.field(7, thrift::kStruct);
    w.begin_struct();
    w.i32(1, h.num_values);
    w.i32(2, h.encoding);
    w.end_struct();
  } else {
    w.field(5, thrift::kStruct);
    w.begin_struct();
    w.i32(1, h.num_values);
    w.i32(2, h.encoding);
    w.i32(3, kRle);
    w.i32(4, kRle);
    w.end_struct();
  }
  w.end_struct();
  return std::move(w.out());
}

}  // namespace ember::parquet
