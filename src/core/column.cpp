// Column: construction from vectors and scalars, raw-buffer assembly, row access and slicing.
#include "ember/column.h"

#include <limits>
#include <string>

#include "core/bitmap.h"
#include "core/buffer_access.h"

namespace ember {

namespace {

// Utf8 offsets are int32 (Arrow's "utf8", not "large_utf8").
void check_utf8_size(int64_t total_chars) {
  if (total_chars > std::numeric_limits<int32_t>::max()) {
    throw InvalidArgument("utf8 column would hold " + std::to_string(total_chars) +
                          " bytes of text; one column holds at most 2 GiB (split the input "
                          "into smaller batches)");
  }
}

template <class T>
Column fixed_from(const std::vector<T>& v, DataType type) {
  const int64_t n = static_cast<int64_t>(v.size());
  auto values = detail::BufferAccess::allocate_uninitialized(n * int64_t(sizeof(T)));
  if (n > 0)
    std::memcpy(detail::BufferAccess::mutable_data(*values), v.data(), v.size() * sizeof(T));
  return Column::from_buffers(type, n, 0, nullptr, std::move(values));
}

template <class T>
Column fixed_from_optional(const std::vector<std::optional<T>>& v, DataType type) {
  const int64_t n = static_cast<int64_t>(v.size());
  auto values = Buffer::allocate(n * int64_t(sizeof(T)));
  auto validity = Buffer::allocate(bitmap::bytes_for(n));
  T* out = reinterpret_cast<T*>(detail::BufferAccess::mutable_data(*values));
  uint8_t* bits = detail::BufferAccess::mutable_data(*validity);
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (v[i]) {
      out[i] = *v[i];
      set_bit(bits, i);
    } else {
      ++nulls;
    }
  }
  return Column::from_buffers(type, n, nulls, nulls ? std::move(validity) : nullptr,
                              std::move(values));
}

// Shared by the plain and optional string constructors; `get` yields a pointer or nullptr.
template <class V, class Get>
Column utf8_from(const std::vector<V>& v, Get get) {
  const int64_t n = static_cast<int64_t>(v.size());
  int64_t total = 0;
  int64_t nulls = 0;
  for (const auto& s : v) {
    const std::string* p = get(s);
    if (p)
      total += static_cast<int64_t>(p->size());
    else
      ++nulls;
  }
  check_utf8_size(total);
  auto offsets = detail::BufferAccess::allocate_uninitialized((n + 1) * 4);
  auto chars = detail::BufferAccess::allocate_uninitialized(total);
  auto validity = nulls ? Buffer::allocate(bitmap::bytes_for(n)) : nullptr;
  int32_t* o = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets));
  char* c = reinterpret_cast<char*>(detail::BufferAccess::mutable_data(*chars));
  int32_t pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    o[i] = pos;
    if (const std::string* p = get(v[i])) {
      std::memcpy(c + pos, p->data(), p->size());
      pos += static_cast<int32_t>(p->size());
      if (validity) set_bit(detail::BufferAccess::mutable_data(*validity), i);
    }
  }
  o[n] = pos;
  return Column::from_buffers(utf8(), n, nulls, std::move(validity), std::move(offsets),
                              std::move(chars));
}

// Buffer bytes the column needs, used to reject undersized raw buffers.
int64_t needed_value_bytes(const DataType& type, int64_t end) {
  switch (type.id()) {
    case TypeId::Boolean:
      return bitmap::bytes_for(end);
    case TypeId::Utf8:
    case TypeId::Binary:
    case TypeId::List:
    case TypeId::Map:
      return (end + 1) * 4;
    default:
      return end * type.byte_width();
  }
}

bool has_offsets(TypeId id) {
  return id == TypeId::Utf8 || id == TypeId::Binary || id == TypeId::List || id == TypeId::Map;
}

// Binary shares utf8's layout; only the type differs.
template <class V, class Get>
Column binary_from(const std::vector<V>& v, Get get) {
  std::vector<std::optional<std::string>> text;
  text.reserve(v.size());
  for (const V& b : v) {
    const std::vector<uint8_t>* p = get(b);
    if (p)
      text.emplace_back(std::string(p->begin(), p->end()));
    else
      text.emplace_back();
  }
  Column c = Column::from(std::move(text));
  return Column::from_buffers(binary(), c.size(), c.null_count(), c.validity_buffer(),
                              c.values_buffer(), c.data_buffer());
}

}  // namespace

Column Column::from(std::vector<int64_t> v) { return fixed_from(v, int64()); }
Column Column::from(std::vector<double> v) { return fixed_from(v, float64()); }

Column Column::from(std::vector<bool> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  auto values = Buffer::allocate(bitmap::bytes_for(n));
  for (int64_t i = 0; i < n; ++i) {
    if (v[i]) set_bit(detail::BufferAccess::mutable_data(*values), i);
  }
  return from_buffers(boolean(), n, 0, nullptr, std::move(values));
}

Column Column::from(std::vector<std::string> v) {
  return utf8_from(v, [](const std::string& s) { return &s; });
}
Column Column::from(std::vector<std::optional<int64_t>> v) {
  return fixed_from_optional(v, int64());
}
Column Column::from(std::vector<std::optional<double>> v) {
  return fixed_from_optional(v, float64());
}

Column Column::from(std::vector<std::optional<bool>> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  auto values = Buffer::allocate(bitmap::bytes_for(n));
  auto validity = Buffer::allocate(bitmap::bytes_for(n));
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!v[i]) {
      ++nulls;
      continue;
    }
    set_bit(detail::BufferAccess::mutable_data(*validity), i);
    if (*v[i]) set_bit(detail::BufferAccess::mutable_data(*values), i);
  }
  return from_buffers(boolean(), n, nulls, nulls ? std::move(validity) : nullptr,
                      std::move(values));
}

Column Column::from(std::vector<std::optional<std::string>> v) {
  return utf8_from(v, [](const std::optional<std::string>& s) { return s ? &*s : nullptr; });
}

Column Column::from(std::vector<int32_t> v) { return fixed_from(v, int32()); }
Column Column::from(std::vector<float> v) { return fixed_from(v, float32()); }
Column Column::from(std::vector<std::optional<int32_t>> v) {
  return fixed_from_optional(v, int32());
}
Column Column::from(std::vector<std::optional<float>> v) {
  return fixed_from_optional(v, float32());
}

Column Column::from(std::vector<Timestamp> v) {
  std::vector<int64_t> micros;
  micros.reserve(v.size());
  for (const Timestamp& t : v) micros.push_back(t.micros);
  return fixed_from(micros, timestamp_us());
}

Column Column::from(std::vector<std::optional<Timestamp>> v) {
  std::vector<std::optional<int64_t>> micros;
  micros.reserve(v.size());
  for (const auto& t : v) micros.push_back(t ? std::optional<int64_t>(t->micros) : std::nullopt);
  return fixed_from_optional(micros, timestamp_us());
}

Column Column::from(std::vector<Date> v) {
  std::vector<int32_t> days;
  days.reserve(v.size());
  for (const Date& d : v) days.push_back(d.days);
  return fixed_from(days, date32());
}

Column Column::from(std::vector<std::optional<Date>> v) {
  std::vector<std::optional<int32_t>> days;
  days.reserve(v.size());
  for (const auto& d : v) days.push_back(d ? std::optional<int32_t>(d->days) : std::nullopt);
  return fixed_from_optional(days, date32());
}

Column Column::from(std::vector<std::vector<uint8_t>> v) {
  return binary_from(v, [](const std::vector<uint8_t>& b) { return &b; });
}

Column Column::from(std::vector<std::optional<std::vector<uint8_t>>> v) {
  return binary_from(v, [](const std::optional<std::vector<uint8_t>>& b) {
    return b ? &*b : static_cast<const std::vector<uint8_t>*>(nullptr);
  });
}

Column Column::list_from(const std::vector<int32_t>& offsets, Column child,
                         const std::vector<bool>& valid) {
  const int64_t n = static_cast<int64_t>(offsets.size()) - 1;
  auto o = detail::BufferAccess::allocate_uninitialized(static_cast<int64_t>(offsets.size()) * 4);
  std::memcpy(detail::BufferAccess::mutable_data(*o), offsets.data(), offsets.size() * 4);
  std::shared_ptr<Buffer> validity;
  int64_t nulls = 0;
  if (!valid.empty()) {
    validity = Buffer::allocate(bitmap::bytes_for(n));
    for (int64_t i = 0; i < n; ++i) {
      if (valid[size_t(i)])
        set_bit(detail::BufferAccess::mutable_data(*validity), i);
      else
        ++nulls;
    }
  }
  DataType type = ember::list(child.type());
  return nested(std::move(type), n, nulls, std::move(validity), std::move(o), std::move(child));
}

Column Column::nested(DataType type, int64_t length, int64_t null_count,
                      std::shared_ptr<Buffer> validity, std::shared_ptr<Buffer> offsets,
                      Column child, int64_t offset) {
  if (!type.is_list()) {
    throw InvalidArgument("Column::nested builds list columns, not " + type.to_string());
  }
  if (length < 0 || offset < 0) {
    throw InvalidArgument("column length and offset must be >= 0, got length " +
                          std::to_string(length) + ", offset " + std::to_string(offset));
  }
  if (child.type() != type.element() && type.element().id() != TypeId::Null) {
    throw InvalidArgument(type.to_string() + " column cannot hold items of type " +
                          child.type().to_string());
  }
  if (type.has_list_offsets()) {
    if (!offsets || offsets->size() < (offset + length + 1) * 4) {
      throw InvalidArgument(type.to_string() + " column of " + std::to_string(offset + length) +
                            " rows needs " + std::to_string((offset + length + 1) * 4) +
                            " offset bytes");
    }
    const int32_t* o = reinterpret_cast<const int32_t*>(offsets->data()) + offset;
    if (o[0] < 0 || o[length] < o[0] || o[length] > child.size()) {
      throw InvalidArgument(type.to_string() + " column offsets [" + std::to_string(o[0]) + ", " +
                            std::to_string(o[length]) + "] do not fit its " +
                            std::to_string(child.size()) + " items");
    }
  } else {
    offsets = nullptr;
    // Divided, not multiplied: sizes an imported array gives could overflow the product.
    if (type.list_size() > 0 && offset + length > child.size() / type.list_size()) {
      throw InvalidArgument(type.to_string() + " column of " + std::to_string(offset + length) +
                            " rows needs " + std::to_string(type.list_size()) +
                            " items a row, the child has " + std::to_string(child.size()));
    }
  }
  Column c = shaped(std::move(type), length, null_count, std::move(validity), offset);
  c.values_ = std::move(offsets);
  c.child_ = std::make_shared<const Column>(std::move(child));
  return c;
}

Column Column::nested(DataType type, int64_t length, int64_t null_count,
                      std::shared_ptr<Buffer> validity, std::vector<Column> children,
                      int64_t offset) {
  if (type.id() != TypeId::Struct) {
    throw InvalidArgument("Column::nested with child columns builds structs, not " +
                          type.to_string());
  }
  if (length < 0 || offset < 0) {
    throw InvalidArgument("column length and offset must be >= 0, got length " +
                          std::to_string(length) + ", offset " + std::to_string(offset));
  }
  const std::vector<Field>& fields = type.fields();
  if (children.size() != fields.size()) {
    throw InvalidArgument(type.to_string() + " column needs " + std::to_string(fields.size()) +
                          " children, got " + std::to_string(children.size()));
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (children[i].type() != fields[i].type) {
      throw InvalidArgument(type.to_string() + " field \"" + fields[i].name + "\" cannot be a " +
                            children[i].type().to_string() + " column");
    }
    if (children[i].size() < offset + length) {
      throw InvalidArgument(type.to_string() + " field \"" + fields[i].name + "\" has " +
                            std::to_string(children[i].size()) + " rows, the struct needs " +
                            std::to_string(offset + length));
    }
  }
  Column c = shaped(std::move(type), length, null_count, std::move(validity), offset);
  c.children_ = std::make_shared<const std::vector<Column>>(std::move(children));
  return c;
}

Column Column::shaped(DataType type, int64_t length, int64_t null_count,
                      std::shared_ptr<Buffer> validity, int64_t offset) {
  if (validity && validity->size() < bitmap::bytes_for(offset + length)) {
    throw InvalidArgument("validity bitmap too small for " + std::to_string(offset + length) +
                          " rows");
  }
  if (null_count < 0)
    null_count = validity ? length - bitmap::count_set(validity->data(), offset, length) : 0;
  Column c;
  c.type_ = std::move(type);
  c.length_ = length;
  c.offset_ = offset;
  c.null_count_ = validity ? null_count : 0;
  c.validity_ = c.null_count_ ? std::move(validity) : nullptr;
  return c;
}

Column Column::struct_of(std::vector<std::pair<std::string, Column>> children) {
  std::vector<Field> fields;
  std::vector<Column> columns;
  for (auto& [name, column] : children) {
    if (!columns.empty() && column.size() != columns[0].size()) {
      throw InvalidArgument("struct field \"" + name + "\" has " + std::to_string(column.size()) +
                            " rows, field \"" + fields[0].name + "\" has " +
                            std::to_string(columns[0].size()));
    }
    fields.push_back(Field{name, column.type()});
    columns.push_back(std::move(column));
  }
  const int64_t n = columns.empty() ? 0 : columns[0].size();
  return nested(struct_(std::move(fields)), n, 0, nullptr, std::move(columns));
}

const Column& Column::child() const {
  if (!child_) throw TypeError("column is " + type_.to_string() + ", not a list");
  return *child_;
}

const std::vector<Column>& Column::children() const {
  static const std::vector<Column> none;
  return children_ ? *children_ : none;
}

Column Column::field(const std::string& name) const {
  if (type_.id() != TypeId::Struct)
    throw TypeError("column is " + type_.to_string() + ", not a struct");
  const int i = type_.field_index(name);
  if (i < 0) {
    std::string known;
    for (const Field& f : type_.fields()) known += (known.empty() ? "" : ", ") + f.name;
    throw InvalidArgument("struct has no field \"" + name + "\" (its fields: " + known + ")");
  }
  return field(i);
}

Column Column::field(int i) const {
  if (type_.id() != TypeId::Struct)
    throw TypeError("column is " + type_.to_string() + ", not a struct");
  if (i < 0 || i >= static_cast<int>(children_->size())) {
    throw InvalidArgument("struct field " + std::to_string(i) + " is out of range for " +
                          type_.to_string());
  }
  Column c = (*children_)[size_t(i)].slice(offset_, length_);
  if (null_count_ == 0 || c.type_.id() == TypeId::Null) return c;
  // Rows where the struct is null become null in the field: its bitmap ANDed with ours, at the
  // child's bit positions so that its value buffers stay shared.
  auto bits = Buffer::allocate(bitmap::bytes_for(c.offset_ + length_));
  uint8_t* out = detail::BufferAccess::mutable_data(*bits);
  const uint8_t* mine = validity_->data();
  const uint8_t* theirs = c.validity_ ? c.validity_->data() : nullptr;
  int64_t nulls = 0;
  for (int64_t r = 0; r < length_; ++r) {
    const bool v = bit_at(mine, offset_ + r) && (!theirs || bit_at(theirs, c.offset_ + r));
    if (v)
      set_bit(out, c.offset_ + r);
    else
      ++nulls;
  }
  c.validity_ = nulls ? std::move(bits) : nullptr;
  c.null_count_ = nulls;
  return c;
}

Column Column::list(int64_t i) const {
  if (!type_.is_list()) throw TypeError("column is " + type_.to_string() + ", not a list");
  if (i < 0 || i >= length_) {
    throw InvalidArgument("row " + std::to_string(i) + " is out of range for a column of " +
                          std::to_string(length_) + " rows");
  }
  const auto [first, last] = list_range(i);
  return child_->slice(first, last - first);
}

Column Column::nulls(DataType type, int64_t n) {
  if (n < 0) throw InvalidArgument("column length must be >= 0, got " + std::to_string(n));
  if (type.id() == TypeId::Null) return from_buffers(type, n, n, nullptr, nullptr);
  auto validity = n ? Buffer::allocate(bitmap::bytes_for(n)) : nullptr;
  if (type.has_list_offsets())
    return nested(type, n, n, std::move(validity), Buffer::allocate((n + 1) * 4),
                  nulls(type.element(), 0));
  if (type.id() == TypeId::Struct) {
    std::vector<Column> children;
    for (const Field& f : type.fields()) children.push_back(nulls(f.type, n));
    return nested(type, n, n, std::move(validity), std::move(children));
  }
  if (type.id() == TypeId::FixedSizeList)
    return nested(type, n, n, std::move(validity), nullptr,
                  nulls(type.element(), n * type.list_size()));
  auto values = Buffer::allocate(needed_value_bytes(type, n));
  auto chars = has_offsets(type.id()) ? Buffer::allocate(0) : nullptr;
  return from_buffers(type, n, n, std::move(validity), std::move(values), std::move(chars));
}

Column Column::repeat(const Value& v, DataType type, int64_t n) {
  if (n < 0) throw InvalidArgument("column length must be >= 0, got " + std::to_string(n));
  if (std::holds_alternative<std::monostate>(v)) return nulls(type, n);
  if (v.index() > 4 || type.id() > TypeId::Utf8) {
    // The newer types go through the builder, which knows their conversions.
    ColumnBuilder b(type, n);
    for (int64_t i = 0; i < n; ++i) b.append_value(v);
    return b.finish();
  }
  if (type.id() == TypeId::Float64 && std::holds_alternative<int64_t>(v)) {
    return fixed_from(std::vector<double>(size_t(n), double(std::get<int64_t>(v))), type);
  }
  if (type_of(v) != type) {
    throw InvalidArgument("cannot repeat " + type_of(v).to_string() + " value " +
                          ember::to_string(v) + " as a " + type.to_string() + " column");
  }
  switch (type.id()) {
    case TypeId::Boolean: {
      auto values = Buffer::allocate(bitmap::bytes_for(n));
      if (std::get<bool>(v)) bitmap::set_range(detail::BufferAccess::mutable_data(*values), 0, n);
      return from_buffers(type, n, 0, nullptr, std::move(values));
    }
    case TypeId::Int64:
      return fixed_from(std::vector<int64_t>(size_t(n), std::get<int64_t>(v)), type);
    case TypeId::Float64:
      return fixed_from(std::vector<double>(size_t(n), std::get<double>(v)), type);
    default: {
      const std::string& s = std::get<std::string>(v);
      const int64_t len = static_cast<int64_t>(s.size());
      check_utf8_size(len * n);
      auto offsets = detail::BufferAccess::allocate_uninitialized((n + 1) * 4);
      auto chars = detail::BufferAccess::allocate_uninitialized(len * n);
      int32_t* o = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets));
      char* c = reinterpret_cast<char*>(detail::BufferAccess::mutable_data(*chars));
      for (int64_t i = 0; i < n; ++i) {
        o[i] = static_cast<int32_t>(i * len);
        std::memcpy(c + i * len, s.data(), s.size());
      }
      o[n] = static_cast<int32_t>(n * len);
      return from_buffers(type, n, 0, nullptr, std::move(offsets), std::move(chars));
    }
  }
}

Column Column::from_buffers(DataType type, int64_t length, int64_t null_count,
                            std::shared_ptr<Buffer> validity, std::shared_ptr<Buffer> values,
                            std::shared_ptr<Buffer> data, int64_t offset) {
  if (length < 0 || offset < 0) {
    throw InvalidArgument("column length and offset must be >= 0, got length " +
                          std::to_string(length) + ", offset " + std::to_string(offset));
  }
  const TypeId id = type.id();
  if (type.is_nested()) {
    throw InvalidArgument(type.to_string() + " columns are assembled with Column::nested");
  }
  Column c;
  c.type_ = type;
  c.length_ = length;
  c.offset_ = offset;
  if (id == TypeId::Null) {
    c.null_count_ = length;
    return c;
  }
  if (!values) throw InvalidArgument(type.to_string() + " column needs a values buffer");
  if (values->size() < needed_value_bytes(type, offset + length)) {
    throw InvalidArgument(type.to_string() + " column of " + std::to_string(offset + length) +
                          " rows needs " +
                          std::to_string(needed_value_bytes(type, offset + length)) +
                          " value bytes, the buffer has " + std::to_string(values->size()));
  }
  if (validity && validity->size() < bitmap::bytes_for(offset + length)) {
    throw InvalidArgument("validity bitmap too small for " + std::to_string(offset + length) +
                          " rows");
  }
  if (has_offsets(id) && !data) data = Buffer::allocate(0);
  if (null_count < 0) {
    // Unknown: count it, so null_count() is always exact.
    null_count = validity ? length - bitmap::count_set(validity->data(), offset, length) : 0;
  }
  c.null_count_ = validity ? null_count : 0;
  // A bitmap with no zero bits carries no information; dropping it enables all-valid fast paths.
  c.validity_ = c.null_count_ ? std::move(validity) : nullptr;
  c.values_ = std::move(values);
  c.data_ = has_offsets(id) ? std::move(data) : nullptr;
  return c;
}

Value Column::get(int64_t i) const {
  if (i < 0 || i >= length_) {
    throw InvalidArgument("row " + std::to_string(i) + " is out of range for a column of " +
                          std::to_string(length_) + " rows");
  }
  if (is_null(i)) return Value{};
  switch (type_.id()) {
    case TypeId::Boolean:
      return value<bool>(i);
    case TypeId::Int64:
      return value<int64_t>(i);
    case TypeId::Float64:
      return value<double>(i);
    case TypeId::Utf8:
      return std::string(value<std::string_view>(i));
    case TypeId::Int32:
      return int64_t{value<int32_t>(i)};
    case TypeId::Float32:
      return value<float>(i);
    case TypeId::Timestamp:
      return value<Timestamp>(i);
    case TypeId::Date32:
      return value<Date>(i);
    case TypeId::Binary: {
      const std::string_view b = value<std::string_view>(i);
      return std::vector<uint8_t>(b.begin(), b.end());
    }
    case TypeId::List:
    case TypeId::Map:
    case TypeId::FixedSizeList: {
      const auto [first, last] = list_range(i);
      List l;
      l.element = type_.element();
      l.items.reserve(static_cast<size_t>(last - first));
      for (int64_t j = first; j < last; ++j) l.items.push_back(child_->get(j));
      return l;
    }
    case TypeId::Struct: {
      Struct s;
      s.fields.reserve(children_->size());
      for (size_t f = 0; f < children_->size(); ++f)
        s.fields.emplace_back(type_.fields()[f].name, (*children_)[f].get(offset_ + i));
      return s;
    }
    default:
      return Value{};
  }
}

Column Column::slice(int64_t offset, int64_t length) const {
  if (offset < 0 || length < 0 || offset + length > length_) {
    throw InvalidArgument("slice [" + std::to_string(offset) + ", " +
                          std::to_string(offset + length) + ") is out of range for a column of " +
                          std::to_string(length_) + " rows");
  }
  Column c = *this;
  c.offset_ = offset_ + offset;
  c.length_ = length;
  if (type_.id() == TypeId::Null) {
    c.null_count_ = length;
  } else if (validity_) {
    c.null_count_ = length - bitmap::count_set(validity_->data(), c.offset_, length);
    if (c.null_count_ == 0) c.validity_ = nullptr;
  }
  return c;
}

int64_t Column::byte_size() const {
  // The bytes this column's rows occupy (a slice counts only its own rows), not the capacity of
  // the shared buffers, so accounting does not double count slices of one batch.
  int64_t n = validity_ ? bitmap::bytes_for(length_) : 0;
  switch (type_.id()) {
    case TypeId::Boolean:
      return n + bitmap::bytes_for(length_);
    case TypeId::Utf8:
    case TypeId::Binary: {
      const int32_t* o = offsets();
      return n + 4 * (length_ + 1) + (o[length_] - o[0]);
    }
    case TypeId::List:
    case TypeId::Map:
    case TypeId::FixedSizeList: {
      if (length_ == 0) return n;
      const int64_t first = list_range(0).first, last = list_range(length_ - 1).second;
      const int64_t offsets_bytes = type_.has_list_offsets() ? 4 * (length_ + 1) : 0;
      return n + offsets_bytes + child_->slice(first, last - first).byte_size();
    }
    case TypeId::Struct:
      for (const Column& c : *children_) n += c.slice(offset_, length_).byte_size();
      return n;
    default:
      return n + type_.byte_width() * length_;
  }
}

}  // namespace ember
