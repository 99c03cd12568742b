// The column codec: a header of six int64 per column, then its three buffers' bytes, then its
// children's columns.
#include "exec/relational/column_codec.h"

#include <cstring>

#include "core/buffer_access.h"
#include "ember/error.h"

namespace ember {

namespace {

constexpr int64_t kAbsent = -1;  ///< a buffer the column does not have

int64_t size_of(const std::shared_ptr<Buffer>& b) { return b ? b->size() : kAbsent; }

/// Bytes the column's buffers hold, its list items' included: more than byte_size() when the
/// column is a slice of a larger one.
int64_t held_bytes(const Column& c) {
  int64_t held = 0;
  for (const auto* b : {&c.validity_buffer(), &c.values_buffer(), &c.data_buffer()})
    if (*b) held += (*b)->size();
  if (c.type().is_list()) return held + held_bytes(c.child());
  for (const Column& child : c.children()) held += held_bytes(child);
  return held;
}

}  // namespace

Column compacted(const Column& c) {
  // Concatenating a column with nothing copies it; Column::concat of one part would share it.
  // A nested column is copied row by row: concat would still share a list's items or a struct
  // field's buffers when only one part has rows.
  if (c.offset() == 0 && held_bytes(c) <= c.byte_size() + 256) return c;
  if (!c.type().is_nested()) return Column::concat({c, c.slice(0, 0)});
  ColumnBuilder copy(c.type(), c.size());
  for (int64_t i = 0; i < c.size(); ++i) copy.append_from(c, i);
  return copy.finish();
}

void put_column(const Column& c, const std::function<void(const void*, size_t)>& put) {
  const int64_t head[6] = {c.size(),
                           c.null_count(),
                           c.offset(),
                           size_of(c.validity_buffer()),
                           size_of(c.values_buffer()),
                           size_of(c.data_buffer())};
  put(head, sizeof head);
  for (const auto* b : {&c.validity_buffer(), &c.values_buffer(), &c.data_buffer()})
    if (*b && (*b)->size() > 0) put((*b)->data(), static_cast<size_t>((*b)->size()));
  // A list's (or map's) items follow it, as one more column (itself a list for a list of
  // lists); a struct's fields follow it, one column each, unsliced as the struct holds them.
  if (c.type().is_list()) put_column(c.child(), put);
  for (const Column& child : c.children()) put_column(child, put);
}

Column get_column(const DataType& type, const std::function<void(void*, size_t)>& get) {
  int64_t head[6];
  get(head, sizeof head);
  std::shared_ptr<Buffer> bufs[3];
  for (int i = 0; i < 3; ++i) {
    if (head[3 + i] == kAbsent) continue;
    if (head[3 + i] < 0) throw Error("a column's bytes with a buffer of negative size");
    bufs[i] = detail::BufferAccess::allocate_uninitialized(head[3 + i]);
    if (head[3 + i] > 0)
      get(detail::BufferAccess::mutable_data(*bufs[i]), static_cast<size_t>(head[3 + i]));
  }
  if (type.is_list()) {
    Column items = get_column(type.element(), get);
    return Column::nested(type, head[0], head[1], bufs[0], bufs[1], std::move(items), head[2]);
  }
  if (type.id() == TypeId::Struct) {
    std::vector<Column> children;
    for (const Field& f : type.fields()) children.push_back(get_column(f.type, get));
    return Column::nested(type, head[0], head[1], bufs[0], std::move(children), head[2]);
  }
  return Column::from_buffers(type, head[0], head[1], bufs[0], bufs[1], bufs[2], head[2]);
}

void append_columns(const std::vector<Column>& columns, std::string& out) {
  for (const Column& c : columns)
    put_column(compacted(c), [&out](const void* data, size_t n) {
      out.append(static_cast<const char*>(data), n);
    });
}

std::vector<Column> read_columns(std::string_view& in, const std::vector<DataType>& types) {
  const auto get = [&in](void* data, size_t n) {
    if (in.size() < n) throw Error("columns' bytes cut short");
    std::memcpy(data, in.data(), n);
    in.remove_prefix(n);
  };
  std::vector<Column> out;
  for (const DataType& type : types) out.push_back(get_column(type, get));
  return out;
}

}  // namespace ember
