// ColumnBuilder: row-by-row construction with amortised (doubling) growth straight into the
// Buffers the finished column will share, so finish() copies nothing.
#include <algorithm>
#include <limits>
#include <string>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "ember/column.h"

namespace ember {

namespace {

// A byte region that doubles when full; its Buffer becomes the column's buffer on finish().
// Bitmaps are built by OR-ing bits in, so they start zeroed; values, offsets and characters are
// written slot by slot, so they skip the zero fill.
struct GrowableBuffer {
  std::shared_ptr<Buffer> buf;
  int64_t capacity = 0;
  bool zero_fill = true;

  void ensure(int64_t bytes) {
    if (buf && bytes <= capacity) return;
    const int64_t cap = std::max<int64_t>({bytes, capacity * 2, 64});
    auto next =
        zero_fill ? Buffer::allocate(cap) : detail::BufferAccess::allocate_uninitialized(cap);
    if (buf)
      std::memcpy(detail::BufferAccess::mutable_data(*next), buf->data(),
                  static_cast<size_t>(capacity));
    buf = std::move(next);
    capacity = cap;
  }
  uint8_t* data() { return detail::BufferAccess::mutable_data(*buf); }
};

}  // namespace

struct ColumnBuilder::State {
  DataType type;
  int64_t length = 0;
  int64_t null_count = 0;
  int64_t row_capacity = 0;
  bool has_validity = false;  // allocated lazily at the first null
  GrowableBuffer validity;
  GrowableBuffer values;  // fixed-width values, bit-packed booleans or int32 offsets
  GrowableBuffer chars;   // utf8 and binary only
  int64_t chars_used = 0;
  std::unique_ptr<ColumnBuilder> items;  // list, fixed_size_list and map only
  std::vector<ColumnBuilder> fields;     // struct only

  bool has_offsets() const {
    return type.id() == TypeId::Utf8 || type.id() == TypeId::Binary || type.has_list_offsets();
  }

  int64_t value_bytes(int64_t rows) const {
    switch (type.id()) {
      case TypeId::Boolean:
        return bitmap::bytes_for(rows);
      case TypeId::Utf8:
      case TypeId::Binary:
      case TypeId::List:
      case TypeId::Map:
        return (rows + 1) * 4;
      default:
        return rows * type.byte_width();
    }
  }

  void reserve_rows(int64_t rows) {
    if (rows <= row_capacity) return;
    const int64_t cap = std::max(rows, row_capacity * 2);
    if (value_bytes(cap) > 0) values.ensure(value_bytes(cap));
    if (has_validity) validity.ensure(bitmap::bytes_for(cap));
    row_capacity = cap;
  }

  // Makes room for one more row; the caller writes it and then calls `commit_valid`.
  void grow_one() { reserve_rows(length + 1); }

  void commit_valid() {
    if (has_validity) set_bit(validity.data(), length);
    ++length;
  }

  void start_validity() {
    has_validity = true;
    validity.ensure(bitmap::bytes_for(std::max<int64_t>(row_capacity, 1)));
    bitmap::set_range(validity.data(), 0, length);
  }

  int32_t* offsets() { return reinterpret_cast<int32_t*>(values.data()); }

  void init_buffers() {
    values.zero_fill = type.id() == TypeId::Boolean;
    chars.zero_fill = false;
    if (type.is_list()) items = std::make_unique<ColumnBuilder>(type.element());
    for (const Field& f : type.fields()) fields.emplace_back(f.type);
  }

  template <class T>
  void put(T v) {
    grow_one();
    reinterpret_cast<T*>(values.data())[length] = v;
    commit_valid();
  }

  // Ends a list row whose items were just appended to `items`.
  void end_list_row() {
    grow_one();
    const int64_t end = items->size();
    if (type.has_list_offsets()) {
      if (end > std::numeric_limits<int32_t>::max())
        throw InvalidArgument("a list column holds at most 2^31-1 items in all");
      if (length == 0) offsets()[0] = 0;
      offsets()[length + 1] = static_cast<int32_t>(end);
    }
    commit_valid();
  }

  [[noreturn]] void mismatch(const char* what) const {
    throw InvalidArgument(std::string("cannot append a ") + what + " value to a " +
                          type.to_string() + " column builder");
  }
};

ColumnBuilder::ColumnBuilder(DataType type, int64_t capacity) : s_(std::make_unique<State>()) {
  s_->type = std::move(type);
  s_->init_buffers();
  s_->reserve_rows(std::max<int64_t>(capacity, 0));
}

ColumnBuilder::ColumnBuilder(ColumnBuilder&&) noexcept = default;
ColumnBuilder& ColumnBuilder::operator=(ColumnBuilder&&) noexcept = default;
ColumnBuilder::~ColumnBuilder() = default;

void ColumnBuilder::append_null() {
  State& s = *s_;
  s.grow_one();
  if (s.has_offsets()) {
    if (s.length == 0) s.offsets()[0] = 0;
    s.offsets()[s.length + 1] =
        static_cast<int32_t>(s.type.has_list_offsets() ? s.items->size() : s.chars_used);
  }
  for (ColumnBuilder& f : s.fields) f.append_null();
  if (s.type.id() == TypeId::FixedSizeList) {
    for (int32_t k = 0; k < s.type.list_size(); ++k) s.items->append_null();
  }
  if (const int w = s.type.byte_width())  // deterministic bytes under nulls
    std::memset(s.values.data() + s.length * w, 0, static_cast<size_t>(w));
  if (s.type.id() != TypeId::Null && !s.has_validity) s.start_validity();
  ++s.length;
  ++s.null_count;
}

void ColumnBuilder::append(bool v) {
  State& s = *s_;
  if (s.type.id() != TypeId::Boolean) s.mismatch("bool");
  s.grow_one();
  if (v) set_bit(s.values.data(), s.length);
  s.commit_valid();
}

void ColumnBuilder::append(int64_t v) {
  State& s = *s_;
  switch (s.type.id()) {
    case TypeId::Int64:
      return s.put(v);
    case TypeId::Float64:
      return s.put(static_cast<double>(v));
    case TypeId::Float32:
      return s.put(static_cast<float>(v));
    case TypeId::Int32:
      if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
        throw InvalidArgument("value " + std::to_string(v) + " does not fit an int32 column");
      }
      return s.put(static_cast<int32_t>(v));
    default:
      s.mismatch("int64");
  }
}

void ColumnBuilder::append(int32_t v) {
  if (s_->type.id() == TypeId::Int32) return s_->put(v);
  append(static_cast<int64_t>(v));
}

void ColumnBuilder::append(double v) {
  State& s = *s_;
  if (s.type.id() == TypeId::Float32) return s.put(static_cast<float>(v));
  if (s.type.id() != TypeId::Float64) s.mismatch("float64");
  s.put(v);
}

void ColumnBuilder::append(float v) {
  State& s = *s_;
  if (s.type.id() == TypeId::Float64) return s.put(static_cast<double>(v));
  if (s.type.id() != TypeId::Float32) s.mismatch("float32");
  s.put(v);
}

void ColumnBuilder::append(Timestamp v) {
  State& s = *s_;
  if (s.type.id() != TypeId::Timestamp) s.mismatch("timestamp[us]");
  s.put(v.micros);
}

void ColumnBuilder::append(Date v) {
  State& s = *s_;
  if (s.type.id() != TypeId::Date32) s.mismatch("date32");
  s.put(v.days);
}

void ColumnBuilder::append(std::string_view v) {
  State& s = *s_;
  if (s.type.id() != TypeId::Utf8 && s.type.id() != TypeId::Binary) s.mismatch("utf8");
  const int64_t end = s.chars_used + static_cast<int64_t>(v.size());
  if (end > std::numeric_limits<int32_t>::max()) {
    throw InvalidArgument("utf8 column would hold " + std::to_string(end) +
                          " bytes of text; one column holds at most 2 GiB (use smaller batches)");
  }
  s.grow_one();
  s.chars.ensure(end);
  if (!v.empty()) std::memcpy(s.chars.data() + s.chars_used, v.data(), v.size());
  s.chars_used = end;
  if (s.length == 0) s.offsets()[0] = 0;
  s.offsets()[s.length + 1] = static_cast<int32_t>(end);
  s.commit_valid();
}

void ColumnBuilder::append_value(const Value& v) {
  switch (v.index()) {
    case 0:
      return append_null();
    case 1:
      return append(std::get<bool>(v));
    case 2:
      return append(std::get<int64_t>(v));
    case 3:
      return append(std::get<double>(v));
    case 4:
      return append(std::string_view(std::get<std::string>(v)));
    case 5:
      return append(std::get<float>(v));
    case 6: {
      if (s_->type.id() != TypeId::Binary) s_->mismatch("binary");
      const auto& b = std::get<std::vector<uint8_t>>(v);
      return append(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
    }
    case 7:
      return append(std::get<Timestamp>(v));
    case 9:
      return append(std::get<Date>(v));
    case 10: {
      State& s = *s_;
      if (s.type.id() != TypeId::Struct) s.mismatch("struct");
      const Struct& st = std::get<Struct>(v);
      if (st.fields.size() != s.fields.size()) {
        throw InvalidArgument("a struct value of " + std::to_string(st.fields.size()) +
                              " fields does not fit a " + s.type.to_string() + " column");
      }
      for (size_t f = 0; f < s.fields.size(); ++f) s.fields[f].append_value(st.fields[f].second);
      s.grow_one();
      return s.commit_valid();
    }
    default: {
      State& s = *s_;
      if (!s.type.is_list()) s.mismatch("list");
      const List& l = std::get<List>(v);
      check_list_size(static_cast<int64_t>(l.items.size()));
      for (const Value& item : l.items) s.items->append_value(item);
      return s.end_list_row();
    }
  }
}

void ColumnBuilder::check_list_size(int64_t n) const {
  const DataType& t = s_->type;
  if (t.id() == TypeId::FixedSizeList && n != t.list_size()) {
    throw InvalidArgument("a list of " + std::to_string(n) + " items does not fit a " +
                          t.to_string() + " column");
  }
}

void ColumnBuilder::append_from(const Column& c, int64_t i) {
  const bool list_into_list =
      c.type().is_list() && s_->type.is_list() && c.type().element() == s_->type.element();
  if (c.type() != s_->type && !list_into_list) {
    throw InvalidArgument("cannot append a row of a " + c.type().to_string() + " column to a " +
                          s_->type.to_string() + " column builder");
  }
  if (c.is_null(i)) return append_null();
  switch (c.type().id()) {
    case TypeId::Boolean:
      return append(c.value<bool>(i));
    case TypeId::Int64:
      return append(c.value<int64_t>(i));
    case TypeId::Float64:
      return append(c.value<double>(i));
    case TypeId::Utf8:
    case TypeId::Binary:
      return append(c.value<std::string_view>(i));
    case TypeId::Int32:
      return append(c.value<int32_t>(i));
    case TypeId::Float32:
      return append(c.value<float>(i));
    case TypeId::Timestamp:
      return append(c.value<Timestamp>(i));
    case TypeId::Date32:
      return append(c.value<Date>(i));
    case TypeId::List:
    case TypeId::Map:
    case TypeId::FixedSizeList: {
      const auto [first, last] = c.list_range(i);
      check_list_size(last - first);
      for (int64_t j = first; j < last; ++j) s_->items->append_from(c.child(), j);
      return s_->end_list_row();
    }
    case TypeId::Struct: {
      for (size_t f = 0; f < s_->fields.size(); ++f)
        s_->fields[f].append_from(c.children()[f], c.offset() + i);
      s_->grow_one();
      return s_->commit_valid();
    }
    default:
      return append_null();
  }
}

void ColumnBuilder::reserve(int64_t rows) { s_->reserve_rows(rows); }
int64_t ColumnBuilder::size() const { return s_->length; }
DataType ColumnBuilder::type() const { return s_->type; }

Column ColumnBuilder::finish() {
  State& s = *s_;
  const DataType type = s.type;
  Column out;
  if (type.id() == TypeId::Null) {
    out = Column::nulls(type, s.length);
  } else if (type.is_list()) {
    if (type.has_list_offsets()) {
      s.values.ensure(s.value_bytes(s.length));
      if (s.length == 0) s.offsets()[0] = 0;
    }
    out = Column::nested(type, s.length, s.null_count, s.has_validity ? s.validity.buf : nullptr,
                         type.has_list_offsets() ? s.values.buf : nullptr, s.items->finish());
  } else if (type.id() == TypeId::Struct) {
    std::vector<Column> children;
    for (ColumnBuilder& f : s.fields) children.push_back(f.finish());
    out = Column::nested(type, s.length, s.null_count, s.has_validity ? s.validity.buf : nullptr,
                         std::move(children));
  } else {
    s.values.ensure(s.value_bytes(s.length));  // an empty builder still needs offsets[0]
    if (s.has_offsets() && s.length == 0) s.offsets()[0] = 0;
    s.chars.ensure(s.chars_used);
    out = Column::from_buffers(type, s.length, s.null_count,
                               s.has_validity ? s.validity.buf : nullptr, s.values.buf,
                               s.has_offsets() ? s.chars.buf : nullptr);
  }
  s_ = std::make_unique<State>();
  s_->type = type;
  s_->init_buffers();
  return out;
}

}  // namespace ember
