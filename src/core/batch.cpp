// Batch: validated record batches and their row-wise operations.
#include "ember/batch.h"

#include <string>

#include "core/bitmap.h"

namespace ember {

namespace {
std::string list_names(const Schema& schema) {
  if (schema.num_fields() == 0) return "(none)";
  std::string out;
  for (int i = 0; i < schema.num_fields(); ++i) {
    if (i > 0) out += ", ";
    out += schema.field(i).name;
  }
  return out;
}
}  // namespace

Batch::Batch(Schema schema, std::vector<Column> columns)
    : schema_(std::move(schema)), columns_(std::move(columns)) {
  if (static_cast<int>(columns_.size()) != schema_.num_fields()) {
    throw InvalidArgument("batch schema has " + std::to_string(schema_.num_fields()) + " fields (" +
                          schema_.to_string() + ") but " + std::to_string(columns_.size()) +
                          " columns were given");
  }
  for (int i = 0; i < num_columns(); ++i) {
    const Field& f = schema_.field(i);
    const Column& c = columns_[static_cast<size_t>(i)];
    if (c.type() != f.type) {
      throw InvalidArgument("column '" + f.name + "' is " + c.type().to_string() +
                            " but the schema says " + f.type.to_string());
    }
    if (c.size() != columns_[0].size()) {
      throw InvalidArgument("column '" + f.name + "' has " + std::to_string(c.size()) +
                            " rows but column '" + schema_.field(0).name + "' has " +
                            std::to_string(columns_[0].size()) +
                            "; all columns of a batch need the same length");
    }
  }
  num_rows_ = columns_.empty() ? 0 : columns_[0].size();
}

Batch Batch::empty_with_rows(int64_t num_rows) {
  if (num_rows < 0) {
    throw InvalidArgument("a batch needs >= 0 rows, got " + std::to_string(num_rows));
  }
  Batch b;
  b.num_rows_ = num_rows;
  return b;
}

const Column& Batch::column(std::string_view name) const {
  const int i = schema_.index_of(name);
  if (i < 0) {
    throw InvalidArgument("no column '" + std::string(name) +
                          "' in batch; columns are: " + list_names(schema_));
  }
  return columns_[static_cast<size_t>(i)];
}

Batch Batch::slice(int64_t offset, int64_t length) const {
  if (offset < 0 || length < 0 || offset + length > num_rows_) {
    throw InvalidArgument("slice [" + std::to_string(offset) + ", " +
                          std::to_string(offset + length) + ") is out of range for a batch of " +
                          std::to_string(num_rows_) + " rows");
  }
  Batch b;
  b.schema_ = schema_;
  b.columns_.reserve(columns_.size());
  for (const Column& c : columns_) b.columns_.push_back(c.slice(offset, length));
  b.num_rows_ = length;
  return b;
}

Batch Batch::filter(const Column& mask) const {
  if (mask.type().id() != TypeId::Boolean || mask.size() != num_rows_) {
    throw InvalidArgument("filter mask must be a bool column of " + std::to_string(num_rows_) +
                          " rows, got " + std::to_string(mask.size()) + " rows of " +
                          mask.type().to_string());
  }
  Batch b;
  b.schema_ = schema_;
  b.columns_.reserve(columns_.size());
  for (const Column& c : columns_) b.columns_.push_back(c.filter(mask));
  if (!b.columns_.empty()) {
    b.num_rows_ = b.columns_[0].size();
  } else {
    // No columns to carry the count: count the selected rows (null = not selected).
    auto sel = bitmap::and_of(mask.bool_bits(), mask.offset(), mask.validity_bits(), mask.offset(),
                              num_rows_);
    b.num_rows_ = bitmap::count_set(sel->data(), 0, num_rows_);
  }
  return b;
}

Batch Batch::concat(const std::vector<Batch>& parts) {
  if (parts.empty()) return Batch();
  if (parts.size() == 1) return parts[0];
  Batch b;
  b.schema_ = parts[0].schema_;
  for (const Batch& p : parts) {
    if (!(p.schema_ == b.schema_)) {
      throw InvalidArgument("cannot concatenate batches with different schemas: (" +
                            b.schema_.to_string() + ") and (" + p.schema_.to_string() + ")");
    }
    b.num_rows_ += p.num_rows_;
  }
  std::vector<Column> pieces(parts.size());
  for (int i = 0; i < b.schema_.num_fields(); ++i) {
    for (size_t k = 0; k < parts.size(); ++k) pieces[k] = parts[k].column(i);
    b.columns_.push_back(Column::concat(pieces));
  }
  return b;
}

int64_t Batch::byte_size() const {
  int64_t n = 0;
  for (const Column& c : columns_) n += c.byte_size();
  return n;
}

}  // namespace ember
