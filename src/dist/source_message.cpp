// Sources as messages: each kind of source written as what it was made from.
#include "dist/source_message.h"

#include <filesystem>

#include "dist/plan_fields.h"
#include "dist/storage_message.h"
#include "exec/sources/arrow_source.h"
#include "exec/sources/file_scan_source.h"
#include "exec/sources/parquet_source.h"
#include "exec/sources/range_source.h"
#include "exec/sources/table_source.h"
#include "plan/logical_plan.h"
#include "plan/source_visitor.h"
#include "udf/value_codec.h"

namespace ember::dist {

namespace {

using process::MessageReader;
using process::MessageWriter;

enum class SourceKind : uint8_t {
  Csv = 1,
  Jsonl = 2,
  Range = 3,
  Parquet = 4,
  Arrow = 5,
  Table = 6
};

/// Writes a source as another rank makes it again: its kind, then what it was made from.
class SourceEncoder final : public SourceVisitor {
 public:
  explicit SourceEncoder(MessageWriter& out) : out_(out) {}

  void visit(const CsvSource& csv) override {
    out_.put(SourceKind::Csv);
    out_.put_string(csv.pattern());
    out_.put(csv.options().delimiter);
    out_.put(csv.options().infer_rows);
    out_.put(csv.options().split_bytes);
    put_schema(out_, csv.schema());  // the same columns, without inferring them again
    put_storage(out_, csv.options().storage);
    // The filter it applies while parsing, so that other ranks skip the same columns' work.
    out_.put(static_cast<uint8_t>(csv.filter_predicate() != nullptr));
    if (csv.filter_predicate()) put_expr(out_, *csv.filter_predicate());
  }
  void visit(const JsonlSource& jsonl) override {
    out_.put(SourceKind::Jsonl);
    out_.put_string(jsonl.pattern());
    out_.put(jsonl.options().infer_rows);
    out_.put(jsonl.options().split_bytes);
    put_storage(out_, jsonl.options().storage);
  }
  void visit(const ParquetSource& parquet) override {
    // The row groups statistics kept, as rank 0 numbered them: every rank reads the same parts.
    out_.put(SourceKind::Parquet);
    out_.put_string(parquet.pattern());
    put_storage(out_, parquet.storage());
    put_strings(out_, parquet.files());
    put_strings(out_, parquet.columns());
    out_.put(static_cast<uint32_t>(parquet.struct_fields().size()));
    for (const auto& [column, fields] : parquet.struct_fields()) {
      out_.put_string(column);
      put_strings(out_, std::vector<std::string>(fields.begin(), fields.end()));
    }
    out_.put(static_cast<uint32_t>(parquet.row_groups().size()));
    for (const ParquetScan::Part& p : parquet.row_groups()) {
      out_.put(static_cast<int32_t>(p.file));
      out_.put(static_cast<int32_t>(p.row_group));
    }
    out_.put(parquet.skipped_row_groups());
  }
  void visit(const ArrowSource& arrow) override {
    out_.put(SourceKind::Arrow);
    out_.put_string(arrow.pattern());
    put_storage(out_, arrow.options().storage);
  }
  void visit(const RangeSource& range) override {
    out_.put(SourceKind::Range);
    out_.put(range.rows());
    out_.put(static_cast<int32_t>(range.num_partitions()));
  }
  void visit(const TableSource& table) override {
    // Sent whole, value by value, once per rank: a table in memory is small next to files.
    out_.put(SourceKind::Table);
    out_.put_string(table.label());
    put_schema(out_, table.schema());
    out_.put(static_cast<uint32_t>(table.partitions().size()));
    for (const std::vector<Batch>& part : table.partitions()) {
      out_.put(static_cast<uint32_t>(part.size()));
      for (const Batch& b : part) {
        out_.put(b.num_rows());
        for (int c = 0; c < b.num_columns(); ++c)
          for (int64_t i = 0; i < b.num_rows(); ++i) put_value(out_, b.column(c).get(i));
      }
    }
  }
  void visit_intermediate(const Source& s) override {
    throw NotSpreadable{"its source (" + s.describe() + ") is no file or range another rank reads"};
  }

 private:
  MessageWriter& out_;
};

/// Adds up source_bytes.
class SourceBytes final : public SourceVisitor {
 public:
  int64_t bytes = 0;
  void visit(const CsvSource& s) override { add_files(s); }
  void visit(const JsonlSource& s) override { add_files(s); }
  void visit(const ParquetSource& s) override { add_files(s); }
  void visit(const ArrowSource& s) override { add_files(s); }
  void visit(const RangeSource& s) override { bytes += 8 * s.rows(); }
  void visit(const TableSource& s) override {
    for (const auto& part : s.partitions())
      for (const Batch& b : part) bytes += b.byte_size();
  }
  void visit_intermediate(const Source&) override {}

 private:
  void add_files(const Source& s) {
    std::error_code error;
    for (const std::string& f : s.files()) {
      const auto size = std::filesystem::file_size(f, error);
      if (!error) bytes += static_cast<int64_t>(size);
    }
  }
};

std::shared_ptr<const Source> get_table(MessageReader& in) {
  std::string label(in.get_string());
  const Schema schema = get_schema(in);
  std::vector<std::vector<Batch>> parts(in.get<uint32_t>());
  for (std::vector<Batch>& part : parts) {
    part.resize(in.get<uint32_t>());
    for (Batch& b : part) {
      const auto rows = in.get<int64_t>();
      std::vector<Column> columns;
      for (const Field& f : schema.fields()) {
        ColumnBuilder column(f.type, rows);
        for (int64_t i = 0; i < rows; ++i) column.append_value(get_value(in));
        columns.push_back(column.finish());
      }
      b = columns.empty() ? Batch::empty_with_rows(rows) : Batch(schema, std::move(columns));
    }
  }
  return std::make_shared<TableSource>(schema, std::move(parts), std::move(label));
}

}  // namespace

NodePtr get_source(MessageReader& in) {
  switch (in.get<SourceKind>()) {
    case SourceKind::Csv: {
      std::string pattern(in.get_string());
      CsvOptions options;
      options.delimiter = in.get<char>();
      options.infer_rows = in.get<int64_t>();
      options.split_bytes = in.get<int64_t>();
      options.schema = get_schema(in);
      options.storage = get_storage(in);
      auto csv = std::make_shared<CsvSource>(std::move(pattern), std::move(options));
      if (in.get<uint8_t>() != 0) {
        const ExprPtr predicate = get_expr(in);
        if (auto filtered = csv->with_filter(predicate)) return make_source(std::move(filtered));
      }
      return make_source(std::move(csv));
    }
    case SourceKind::Jsonl: {
      std::string pattern(in.get_string());
      JsonlOptions options;
      options.infer_rows = in.get<int64_t>();
      options.split_bytes = in.get<int64_t>();
      options.storage = get_storage(in);
      return make_source(std::make_shared<JsonlSource>(std::move(pattern), options));
    }
    case SourceKind::Range: {
      const auto n = in.get<int64_t>();
      return make_source(std::make_shared<RangeSource>(n, in.get<int32_t>()));
    }
    case SourceKind::Parquet: {
      std::string pattern(in.get_string());
      const StorageOptions storage = get_storage(in);
      const std::vector<std::string> files = get_strings(in);
      const std::vector<std::string> columns = get_strings(in);
      std::map<std::string, std::set<std::string>> struct_fields;
      for (auto n = in.get<uint32_t>(); n > 0; --n) {
        std::string column(in.get_string());
        const std::vector<std::string> fields = get_strings(in);
        struct_fields[column] = std::set<std::string>(fields.begin(), fields.end());
      }
      std::vector<ParquetScan::Part> parts(in.get<uint32_t>());
      for (ParquetScan::Part& p : parts) {
        p.file = in.get<int32_t>();
        p.row_group = in.get<int32_t>();
      }
      const auto skipped = in.get<int64_t>();
      return make_source(ParquetSource::narrowed(std::move(pattern), storage, files, columns,
                                                 struct_fields, std::move(parts), skipped));
    }
    case SourceKind::Arrow: {
      std::string pattern(in.get_string());
      ArrowOptions options;
      options.storage = get_storage(in);
      return make_source(std::make_shared<ArrowSource>(std::move(pattern), std::move(options)));
    }
    case SourceKind::Table:
      return make_source(get_table(in));
  }
  throw Error("distributed runner: a pipeline message holds an unknown source");
}

void put_source(MessageWriter& out, const Source& source) {
  SourceEncoder encoder(out);
  source.accept(encoder);
}

int64_t source_bytes(const Source& source) {
  SourceBytes size;
  source.accept(size);
  return size.bytes;
}

}  // namespace ember::dist
