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
    auto next = zero_fill ? Buffer::allocate(cap) : Buffer::allocate_uninitialized(cap);
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
  GrowableBuffer chars;   // utf8 only
  int64_t chars_used = 0;

  int64_t value_bytes(int64_t rows) const {
    switch (type.id()) {
      case TypeId::Boolean:
        return bitmap::bytes_for(rows);
      case TypeId::Utf8:
        return (rows + 1) * 4;
      case TypeId::Null:
        return 0;
      default:
        return rows * 8;
    }
  }

  void reserve_rows(int64_t rows) {
    if (rows <= row_capacity) return;
    const int64_t cap = std::max(rows, row_capacity * 2);
    if (type.id() != TypeId::Null) values.ensure(value_bytes(cap));
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
  }

  [[noreturn]] void mismatch(const char* what) const {
    throw InvalidArgument(std::string("cannot append a ") + what + " value to a " +
                          type.to_string() + " column builder");
  }
};

ColumnBuilder::ColumnBuilder(DataType type, int64_t capacity) : s_(std::make_unique<State>()) {
  if (type.id() == TypeId::List) throw InvalidArgument("list columns are not supported yet");
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
  if (s.type.id() == TypeId::Utf8) {
    if (s.length == 0) s.offsets()[0] = 0;
    s.offsets()[s.length + 1] = static_cast<int32_t>(s.chars_used);
  }
  if (s.type.id() == TypeId::Int64 || s.type.id() == TypeId::Float64)
    reinterpret_cast<int64_t*>(s.values.data())[s.length] = 0;  // deterministic bytes under nulls
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
  if (s.type.id() == TypeId::Float64) return append(static_cast<double>(v));
  if (s.type.id() != TypeId::Int64) s.mismatch("int64");
  s.grow_one();
  reinterpret_cast<int64_t*>(s.values.data())[s.length] = v;
  s.commit_valid();
}

void ColumnBuilder::append(double v) {
  State& s = *s_;
  if (s.type.id() != TypeId::Float64) s.mismatch("float64");
  s.grow_one();
  reinterpret_cast<double*>(s.values.data())[s.length] = v;
  s.commit_valid();
}

void ColumnBuilder::append(std::string_view v) {
  State& s = *s_;
  if (s.type.id() != TypeId::Utf8) s.mismatch("utf8");
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
    default:
      return append(std::string_view(std::get<std::string>(v)));
  }
}

void ColumnBuilder::append_from(const Column& c, int64_t i) {
  if (c.type() != s_->type) {
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
      return append(c.value<std::string_view>(i));
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
  } else {
    s.values.ensure(s.value_bytes(s.length));  // an empty builder still needs offsets[0]
    if (type.id() == TypeId::Utf8 && s.length == 0) s.offsets()[0] = 0;
    s.chars.ensure(s.chars_used);
    out = Column::from_buffers(type, s.length, s.null_count,
                               s.has_validity ? s.validity.buf : nullptr, s.values.buf,
                               type.id() == TypeId::Utf8 ? s.chars.buf : nullptr);
  }
  s_ = std::make_unique<State>();
  s_->type = type;
  s_->init_buffers();
  return out;
}

}  // namespace ember
