// ParquetSource: the planned scan, narrowed by the optimizer (columns, row groups).
#include "exec/sources/parquet_source.h"

#include "ember/error.h"
#include "exec/sources/row_group_statistics.h"

namespace ember {

ParquetSource::ParquetSource(std::string pattern, ParquetOptions options)
    : pattern_(std::move(pattern)),
      storage_(options.storage),
      scan_(plan_parquet_scan(pattern_, options.columns, storage_)) {}

std::unique_ptr<BatchReader> ParquetSource::open(int p, int64_t batch_rows) const {
  return open_parquet_part(scan_, p, batch_rows);
}

std::shared_ptr<Prefetched> ParquetSource::prefetch(int p) const {
  return prefetch_parquet_part(scan_, p);
}

std::unique_ptr<BatchReader> ParquetSource::open_prefetched(
    int p, int64_t batch_rows, std::shared_ptr<Prefetched> ahead) const {
  return open_parquet_part(scan_, p, batch_rows, std::move(ahead));
}

std::string ParquetSource::describe() const {
  std::string out =
      "ParquetScan " + pattern_ + " (" + std::to_string(scan_.files.size()) + " files, " +
      std::to_string(static_cast<int64_t>(scan_.parts.size()) + skipped_) + " row groups";
  if (skipped_) out += ", " + std::to_string(skipped_) + " skipped by statistics";
  out += ", columns ";
  for (size_t i = 0; i < scan_.column_names.size(); ++i) {
    const std::string& name = scan_.column_names[i];
    out += (i ? ", " : "") + name;
    if (const auto it = scan_.struct_fields.find(name); it != scan_.struct_fields.end()) {
      std::string fields;
      for (const Field& f : scan_.schema.field(scan_.schema.index_of(name)).type.fields())
        fields += (fields.empty() ? "" : ", ") + f.name;
      out += "{" + fields + "}";
    }
  }
  return out + ")";
}

std::vector<std::string> ParquetSource::files() const {
  std::vector<std::string> out;
  for (const auto& f : scan_.files) out.push_back(f->path);
  return out;
}

std::shared_ptr<const Source> ParquetSource::with_columns(
    const std::set<std::string>& columns) const {
  std::shared_ptr<ParquetSource> s(new ParquetSource(*this));
  std::vector<Field> fields;
  std::vector<std::string> names;
  for (const Field& f : scan_.schema.fields()) {
    if (!columns.count(f.name)) continue;
    fields.push_back(f);
    names.push_back(f.name);
  }
  // A query that reads no column still needs the row counts: keep the cheapest column.
  if (fields.empty() && !scan_.schema.fields().empty()) {
    fields.push_back(scan_.schema.field(0));
    names.push_back(fields.back().name);
  }
  if (names.size() == scan_.column_names.size()) return nullptr;
  s->scan_.schema = Schema(std::move(fields));
  s->scan_.column_names = std::move(names);
  return s;
}

std::shared_ptr<const ParquetSource> ParquetSource::narrowed(
    std::string pattern, const StorageOptions& storage, const std::vector<std::string>& files,
    const std::vector<std::string>& columns,
    const std::map<std::string, std::set<std::string>>& struct_fields,
    std::vector<ParquetScan::Part> parts, int64_t skipped) {
  std::shared_ptr<ParquetSource> s(new ParquetSource());
  s->pattern_ = std::move(pattern);
  s->storage_ = storage;
  s->scan_ = plan_parquet_scan(s->pattern_, columns, storage);
  if (s->files() != files)
    throw Error("'" + s->pattern_ + "' names " + std::to_string(s->scan_.files.size()) +
                " files here, not the " + std::to_string(files.size()) +
                " it names on rank 0 (or other ones); every rank must see the same files");
  for (const ParquetScan::Part& p : parts)
    if (p.file < 0 || static_cast<size_t>(p.file) >= s->scan_.files.size() || p.row_group < 0 ||
        static_cast<size_t>(p.row_group) >=
            s->scan_.files[static_cast<size_t>(p.file)]->meta.row_groups.size())
      throw Error("'" + s->pattern_ + "': row group " + std::to_string(p.row_group) + " of file " +
                  std::to_string(p.file) +
                  " does not exist here; every rank must see the same files");
  s->scan_.parts = std::move(parts);
  s->skipped_ = skipped;
  s->narrow_structs(struct_fields);
  return s;
}

std::shared_ptr<const Source> ParquetSource::with_struct_fields(
    const std::map<std::string, std::set<std::string>>& fields) const {
  std::shared_ptr<ParquetSource> s(new ParquetSource(*this));
  return s->narrow_structs(fields) ? s : nullptr;
}

bool ParquetSource::narrow_structs(const std::map<std::string, std::set<std::string>>& fields) {
  bool narrowed = false;
  std::vector<Field> out;
  for (const Field& f : scan_.schema.fields()) {
    const auto it = fields.find(f.name);
    std::vector<Field> kept;
    if (it != fields.end() && f.type.id() == TypeId::Struct)
      for (const Field& field : f.type.fields())
        if (it->second.count(field.name)) kept.push_back(field);
    if (kept.empty() || kept.size() == f.type.fields().size()) {
      out.push_back(f);
      continue;
    }
    std::set<std::string>& names = scan_.struct_fields[f.name];
    names.clear();
    for (const Field& field : kept) names.insert(field.name);
    out.push_back({f.name, struct_(std::move(kept))});
    narrowed = true;
  }
  if (narrowed) scan_.schema = Schema(std::move(out));
  return narrowed;
}

std::shared_ptr<const Source> ParquetSource::with_filter(const ExprPtr& predicate) const {
  std::vector<ParquetScan::Part> kept;
  for (const ParquetScan::Part& part : scan_.parts) {
    if (row_group_may_match(*predicate, *scan_.files[size_t(part.file)], part.row_group))
      kept.push_back(part);
  }
  if (kept.size() == scan_.parts.size()) return nullptr;
  std::shared_ptr<ParquetSource> s(new ParquetSource(*this));
  s->skipped_ = skipped_ + static_cast<int64_t>(scan_.parts.size() - kept.size());
  s->scan_.parts = std::move(kept);
  return s;
}

}  // namespace ember
