// Recording rejected rows per partition and chunk, and merging them into one table.
#include "exec/rejected_rows.h"

#include <climits>

namespace ember {

RejectedRows::RejectedRows(FailurePolicy policy)
    : name_(policy.udf_name()), policy_(std::move(policy)) {}

RejectedRows::RejectedRows(std::string name) : name_(std::move(name)) {}

void RejectedRows::add(int partition, int64_t chunk, const Batch& args,
                       const std::vector<std::string>& errors) {
  const auto n = static_cast<int64_t>(errors.size());
  if (n == 0) return;
  std::vector<Field> fields{{"udf", utf8()}, {"error", utf8()}};
  std::vector<Column> columns{Column::from(std::vector<std::string>(errors.size(), udf())),
                              Column::from(errors)};
  for (int i = 0; i < args.num_columns(); ++i) {
    fields.push_back(args.schema().field(i));
    columns.push_back(args.column(i));
  }
  int64_t total = 0;
  {
    std::lock_guard lock(mu_);
    rows_.emplace(std::make_pair(partition, chunk), Batch(Schema(fields), std::move(columns)));
    total = count_ += n;
  }
  check(total, errors.back());
}

std::vector<std::pair<int64_t, Batch>> RejectedRows::take_partition(int partition) {
  std::vector<std::pair<int64_t, Batch>> out;
  std::lock_guard lock(mu_);
  auto it = rows_.lower_bound({partition, INT64_MIN});
  while (it != rows_.end() && it->first.first == partition) {
    out.emplace_back(it->first.second, std::move(it->second));
    it = rows_.erase(it);
  }
  return out;
}

void RejectedRows::adopt(int partition, int64_t chunk, Batch rows) {
  const int64_t n = rows.num_rows();
  if (n == 0) return;
  std::string last_error;
  if (rows.num_columns() > 1)
    last_error = std::string(rows.column(1).value<std::string_view>(n - 1));
  int64_t total = 0;
  {
    std::lock_guard lock(mu_);
    rows_.emplace(std::make_pair(partition, chunk), std::move(rows));
    total = count_ += n;
  }
  check(total, last_error);
}

int64_t RejectedRows::count() const {
  std::lock_guard lock(mu_);
  return count_;
}

std::vector<Batch> RejectedRows::batches() const {
  std::lock_guard lock(mu_);
  std::vector<Batch> out;
  for (const auto& [key, batch] : rows_) out.push_back(batch);
  return out;
}

Table rejected_table(const std::vector<const RejectedRows*>& per_udf) {
  std::vector<std::vector<Batch>> parts;
  for (const auto& r : per_udf) parts.push_back(r->batches());
  // The merged schema, and for each UDF where each of its columns goes in it.
  std::vector<Field> fields{{"udf", utf8()}, {"error", utf8()}};
  std::vector<std::vector<int>> placement;
  for (const auto& batches : parts) {
    std::vector<int> where;
    if (!batches.empty()) {
      const Schema& schema = batches.front().schema();
      const std::string& udf = per_udf[placement.size()]->udf();
      where = {0, 1};
      for (int i = 2; i < schema.num_fields(); ++i) {
        Field f = schema.field(i);
        int at = -1;
        for (size_t k = 2; k < fields.size(); ++k) {
          if (fields[k].name == f.name && fields[k].type == f.type) at = static_cast<int>(k);
        }
        if (at < 0) {
          for (const Field& g : fields) {
            if (g.name == f.name) f.name = udf + "." + f.name;
          }
          at = static_cast<int>(fields.size());
          fields.push_back(f);
        }
        where.push_back(at);
      }
    }
    placement.push_back(std::move(where));
  }
  Schema schema(fields);
  std::vector<Batch> out;
  for (size_t u = 0; u < parts.size(); ++u) {
    for (const Batch& b : parts[u]) {
      std::vector<Column> columns;
      for (const Field& f : fields) columns.push_back(Column::nulls(f.type, b.num_rows()));
      for (size_t i = 0; i < placement[u].size(); ++i)
        columns[static_cast<size_t>(placement[u][i])] = b.column(static_cast<int>(i));
      out.push_back(Batch(schema, std::move(columns)));
    }
  }
  return Table(schema, std::move(out));
}

}  // namespace ember
