// Tables out through the Arrow C Stream Interface: schemas and arrays that point at the
// columns' own buffers, which they keep alive until the consumer releases them.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arrow_c_data.h"

namespace ember::python {

namespace {

/// What a schema node owns: its strings and children.
struct SchemaData {
  std::string format, name;
  std::vector<ArrowSchema> child_structs;
  std::vector<ArrowSchema*> children;
};

std::string format_of(const DataType& t) {
  switch (t.id()) {
    case TypeId::Null:
      return "n";
    case TypeId::Boolean:
      return "b";
    case TypeId::Int64:
      return "l";
    case TypeId::Float64:
      return "g";
    case TypeId::Utf8:
      return "u";
    case TypeId::List:
      return "+l";
    case TypeId::Int32:
      return "i";
    case TypeId::Float32:
      return "f";
    case TypeId::Binary:
      return "z";
    case TypeId::Timestamp:
      return "tsu:UTC";
    case TypeId::Date32:
      return "tdD";
    case TypeId::FixedSizeList:
      return "+w:" + std::to_string(t.list_size());
    case TypeId::Struct:
      return "+s";
    case TypeId::Map:
      return "+m";
  }
  throw InvalidArgument("no Arrow format for " + t.to_string());
}

/// A child of a schema node: its name, type and flags.
struct SchemaChild {
  std::string name;
  DataType type;
  int64_t flags = ARROW_FLAG_NULLABLE;
};

/// The children of a node of type `t`: a list's "item"; a map's non-nullable "entries" struct,
/// whose "key" is non-nullable too (`map_entries`); a struct's fields.
std::vector<SchemaChild> children_of(const DataType& t, bool map_entries) {
  if (t.id() == TypeId::Map) return {{"entries", t.element(), 0}};
  if (t.is_list()) return {{"item", t.element()}};
  std::vector<SchemaChild> out;
  for (const Field& f : t.fields()) out.push_back({f.name, f.type});
  if (map_entries && !out.empty()) out[0].flags = 0;
  return out;
}

void release_schema(ArrowSchema* s) {
  if (s == nullptr || s->release == nullptr) return;
  auto* data = static_cast<SchemaData*>(s->private_data);
  for (ArrowSchema& c : data->child_structs)
    if (c.release != nullptr) c.release(&c);
  delete data;
  s->release = nullptr;
}

void fill_schema(ArrowSchema* out, const std::string& name, const std::string& format,
                 int64_t flags, const std::vector<SchemaChild>& children) {
  auto* data = new SchemaData{format, name, {}, {}};
  data->child_structs.resize(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    const SchemaChild& c = children[i];
    fill_schema(&data->child_structs[i], c.name, format_of(c.type), c.flags,
                children_of(c.type, format == "+m"));
    data->children.push_back(&data->child_structs[i]);
  }
  *out = ArrowSchema{data->format.c_str(),
                     data->name.c_str(),
                     nullptr,
                     flags,
                     static_cast<int64_t>(children.size()),
                     data->children.empty() ? nullptr : data->children.data(),
                     nullptr,
                     &release_schema,
                     data};
}

void export_schema(const Schema& schema, ArrowSchema* out) {
  std::vector<SchemaChild> fields;
  for (const Field& f : schema.fields()) fields.push_back({f.name, f.type});
  fill_schema(out, "", "+s", ARROW_FLAG_NULLABLE, fields);
}

/// What an array node owns: the column (so its buffers), the buffer pointers, its children.
struct ArrayData {
  Column column;
  std::vector<const void*> buffers;
  std::vector<ArrowArray> child_structs;
  std::vector<ArrowArray*> children;
};

void release_array(ArrowArray* a) {
  if (a == nullptr || a->release == nullptr) return;
  auto* data = static_cast<ArrayData*>(a->private_data);
  for (ArrowArray& c : data->child_structs)
    if (c.release != nullptr) c.release(&c);
  delete data;
  a->release = nullptr;
}

const void* raw(const std::shared_ptr<Buffer>& b) { return b ? b->data() : nullptr; }

void export_column(const Column& c, ArrowArray* out);

/// An ArrowArray over `data` (buffers and children filled in already).
void finish_array(ArrayData* data, int64_t length, int64_t null_count, int64_t offset,
                  ArrowArray* out) {
  data->children.clear();
  for (ArrowArray& child : data->child_structs) data->children.push_back(&child);
  *out = ArrowArray{length,
                    null_count,
                    offset,
                    static_cast<int64_t>(data->buffers.size()),
                    static_cast<int64_t>(data->children.size()),
                    data->buffers.empty() ? nullptr : data->buffers.data(),
                    data->children.empty() ? nullptr : data->children.data(),
                    nullptr,
                    &release_array,
                    data};
}

void export_column(const Column& c, ArrowArray* out) {
  auto* data = new ArrayData{c, {}, {}, {}};
  const TypeId id = c.type().id();
  if (id != TypeId::Null) data->buffers.push_back(raw(c.validity_buffer()));
  if (id == TypeId::Utf8 || id == TypeId::Binary) {
    data->buffers.push_back(raw(c.values_buffer()));
    data->buffers.push_back(c.data_buffer() ? raw(c.data_buffer()) : c.chars());
  } else if (id != TypeId::Null && id != TypeId::FixedSizeList && id != TypeId::Struct) {
    data->buffers.push_back(raw(c.values_buffer()));  // values, bits or list offsets
  }
  if (c.type().is_list()) {
    data->child_structs.resize(1);
    export_column(c.child(), &data->child_structs[0]);
  }
  if (id == TypeId::Struct) {  // children unsliced: the struct's offset applies to them
    data->child_structs.resize(c.children().size());
    for (size_t i = 0; i < c.children().size(); ++i)
      export_column(c.children()[i], &data->child_structs[i]);
  }
  finish_array(data, c.size(), c.null_count(), id == TypeId::Null ? 0 : c.offset(), out);
}

void export_batch(const Batch& b, ArrowArray* out) {
  auto* data = new ArrayData{Column(), {nullptr}, {}, {}};
  data->child_structs.resize(static_cast<size_t>(b.num_columns()));
  for (int i = 0; i < b.num_columns(); ++i) export_column(b.column(i), &data->child_structs[i]);
  finish_array(data, b.num_rows(), 0, 0, out);
}

/// The stream's state: the table and the next batch to hand out.
struct StreamData {
  Table table;
  size_t next = 0;
  std::string error;
};

int stream_schema(ArrowArrayStream* s, ArrowSchema* out) {
  auto* data = static_cast<StreamData*>(s->private_data);
  try {
    export_schema(data->table.schema(), out);
    return 0;
  } catch (const std::exception& e) {
    data->error = e.what();
    return 22;  // EINVAL
  }
}

int stream_next(ArrowArrayStream* s, ArrowArray* out) {
  auto* data = static_cast<StreamData*>(s->private_data);
  const auto& batches = data->table.batches();
  if (data->next >= batches.size()) {
    out->release = nullptr;  // the end of the stream
    return 0;
  }
  export_batch(batches[data->next++], out);
  return 0;
}

const char* stream_error(ArrowArrayStream* s) {
  auto* data = static_cast<StreamData*>(s->private_data);
  return data->error.empty() ? nullptr : data->error.c_str();
}

void stream_release(ArrowArrayStream* s) {
  if (s == nullptr || s->release == nullptr) return;
  delete static_cast<StreamData*>(s->private_data);
  s->release = nullptr;
}

}  // namespace

void export_table_stream(Table table, ArrowArrayStream* out) {
  for (const Field& f : table.schema().fields()) (void)format_of(f.type);  // fail early
  *out = ArrowArrayStream{&stream_schema, &stream_next, &stream_error, &stream_release,
                          new StreamData{std::move(table), 0, {}}};
}

}  // namespace ember::python
