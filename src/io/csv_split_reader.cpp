// open_csv_split: parses one byte-range split of a CSV file straight into column builders.
#include <algorithm>

#include "ember/error.h"
#include "io/csv_column_writer.h"
#include "io/csv_reader.h"
#include "io/csv_record_reader.h"
#include "io/scalar_parsing.h"
#include "io/utf8_validation.h"

namespace ember {
namespace {

constexpr int64_t kMaxReserveRows = 64 * 1024;

class CsvSplitReader final : public BatchReader {
 public:
  CsvSplitReader(const FileSplit& split, Schema schema, const CsvOptions& options,
                 int64_t batch_rows)
      : records_(split.path, split.begin, options.delimiter),
        schema_(std::move(schema)),
        end_(split.end),
        batch_rows_(batch_rows),
        declared_(options.schema.has_value()) {
    if (batch_rows_ <= 0) throw InvalidArgument("batch rows must be positive");
    for (const Field& f : schema_.fields()) {
      const TypeId id = f.type.id();
      if (id != TypeId::Int64 && id != TypeId::Float64 && id != TypeId::Boolean &&
          id != TypeId::Utf8) {
        throw InvalidArgument("CSV column '" + f.name + "' cannot be read as " +
                              f.type.to_string() + "; use int64, float64, bool or utf8");
      }
      types_.push_back(id);
    }
    // Split 0 starts with the header (already checked by plan_csv_scan); others start mid-record.
    done_ = split.begin == 0 ? !records_.next() : !records_.skip_partial_record();
  }

  /// Called by one thread at a time.
  std::optional<Batch> next() override {
    if (done_) return std::nullopt;
    std::vector<CsvColumnWriter> writers;
    writers.reserve(types_.size());
    const int64_t reserve = std::min(batch_rows_, kMaxReserveRows);
    for (const Field& f : schema_.fields()) writers.emplace_back(f.type, reserve);
    int64_t rows = 0;
    while (rows < batch_rows_) {
      if (!records_.next() || (end_ >= 0 && records_.record_offset() > end_)) {
        done_ = true;  // past the split: the record belongs to the next one
        break;
      }
      append_record(writers);
      ++rows;
    }
    if (rows == 0) return std::nullopt;
    std::vector<Column> columns;
    columns.reserve(writers.size());
    for (CsvColumnWriter& w : writers) columns.push_back(w.finish());
    return Batch(schema_, std::move(columns));
  }

 private:
  void append_record(std::vector<CsvColumnWriter>& writers) {
    const std::vector<CsvField>& fields = records_.fields();
    records_.check_field_count(types_.size());
    for (size_t i = 0; i < types_.size(); ++i) {
      const CsvField& f = fields[i];
      CsvColumnWriter& b = writers[i];
      const TypeId type = types_[i];
      // Empty is null; a quoted "" is an empty string for utf8 and null for other types.
      if (f.size == 0 && !(f.quoted && type == TypeId::Utf8)) {
        b.append_null();
        continue;
      }
      switch (type) {
        case TypeId::Int64: {
          int64_t v;
          if (!parse_int64(f.view(), v)) fail_value(i);
          b.append_int64(v);
          break;
        }
        case TypeId::Float64: {
          double v;
          if (!parse_float64(f.view(), v)) fail_value(i);
          b.append_float64(v);
          break;
        }
        case TypeId::Boolean: {
          bool v;
          if (!parse_bool(f.view(), v)) fail_value(i);
          b.append_bool(v);
          break;
        }
        default:
          if (!is_valid_utf8(f.data, f.size)) {
            records_.fail_at_field(i, "invalid UTF-8 in column '" + schema_.field(int(i)).name +
                                          "' (utf8 columns must hold valid UTF-8 text)");
          }
          b.append_utf8(f.data, f.size);
      }
    }
  }

  [[noreturn]] void fail_value(size_t i) const {
    const Field& field = schema_.field(static_cast<int>(i));
    std::string value(records_.fields()[i].view().substr(0, 60));
    const std::string origin =
        declared_ ? "as declared in CsvOptions::schema"
                  : "as inferred from the first rows; set CsvOptions::schema to read the column "
                    "as another type (e.g. utf8)";
    records_.fail_at_field(i, "value '" + value + "' in column '" + field.name +
                                  "' is not a valid " + field.type.to_string() + " (" + origin +
                                  ")");
  }

  CsvRecordReader records_;
  Schema schema_;
  std::vector<TypeId> types_;
  int64_t end_;
  int64_t batch_rows_;
  bool declared_;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<BatchReader> open_csv_split(const FileSplit& split, const Schema& schema,
                                            const CsvOptions& options, int64_t batch_rows) {
  return std::make_unique<CsvSplitReader>(split, schema, options, batch_rows);
}

}  // namespace ember
