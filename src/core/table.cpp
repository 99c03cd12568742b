// Table: a collected result made of batches of one schema.
#include <string>

#include "ember/batch.h"

namespace ember {

Table::Table(Schema schema, std::vector<Batch> batches)
    : schema_(std::move(schema)), batches_(std::move(batches)) {
  for (size_t i = 0; i < batches_.size(); ++i) {
    const Batch& b = batches_[i];
    if (!(b.schema() == schema_)) {
      throw InvalidArgument("batch " + std::to_string(i) + " has schema (" +
                            b.schema().to_string() + "), the table has (" + schema_.to_string() +
                            ")");
    }
    num_rows_ += b.num_rows();
  }
}

Table Table::from_columns(std::vector<std::pair<std::string, Column>> columns) {
  std::vector<Field> fields;
  std::vector<Column> cols;
  fields.reserve(columns.size());
  cols.reserve(columns.size());
  for (auto& [name, c] : columns) {
    for (const Field& f : fields) {
      if (f.name == name) throw InvalidArgument("duplicate column name '" + name + "'");
    }
    fields.push_back(Field{name, c.type()});
    cols.push_back(std::move(c));
  }
  Schema schema(std::move(fields));
  std::vector<Batch> batches;
  batches.emplace_back(schema, std::move(cols));
  return Table(std::move(schema), std::move(batches));
}

Column Table::column(std::string_view name) const {
  const int i = schema_.index_of(name);
  if (i < 0) {
    std::string names;
    for (const Field& f : schema_.fields()) names += (names.empty() ? "" : ", ") + f.name;
    throw InvalidArgument("no column '" + std::string(name) +
                          "' in table; columns are: " + (names.empty() ? "(none)" : names));
  }
  if (batches_.empty()) return Column::nulls(schema_.field(i).type, 0);
  std::vector<Column> parts;
  parts.reserve(batches_.size());
  for (const Batch& b : batches_) parts.push_back(b.column(i));
  return Column::concat(parts);
}

}  // namespace ember
