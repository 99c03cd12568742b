// open_csv_split: parses one byte-range split of a CSV file straight into column builders.
// Runs of plain records (the common case) are indexed in bulk and parsed a column at a time;
// any other record (quoted, ragged, blank, cut by the read window) goes through the general
// record parser, which also produces every error for such records.
#include "io/csv/csv_split_reader.h"

#include <algorithm>
#include <string_view>

#include "ember/error.h"
#include "io/csv/csv_column_builder.h"
#include "io/csv/csv_record_reader.h"
#include "io/padded_field_parsing.h"
#include "io/scalar_parsing.h"
#include "io/stream_input.h"
#include "io/utf8_validation.h"

namespace ember {
namespace {

constexpr int64_t kMaxReserveRows = 64 * 1024;
// Rows per plain run: their bytes (and separator offsets) stay in cache while each column is
// parsed in turn.
constexpr int64_t kMaxRunRows = 2048;
constexpr size_t kShortRunRows = 16;
constexpr int kGeneralRecordsAfterShortRun = 64;

class CsvSplitReader final : public BatchReader {
 public:
  CsvSplitReader(const FileSplit& split, Schema schema, const CsvOptions& options,
                 int64_t batch_rows, std::shared_ptr<const CsvRowFilter> filter)
      : records_(split, options.delimiter),
        schema_(std::move(schema)),
        begin_(split.begin),
        end_(split.end),
        batch_rows_(batch_rows),
        declared_(options.schema.has_value()),
        filter_(std::move(filter)) {
    if (filter_) {
      std::vector<Field> fields;
      for (int c : filter_->columns) fields.push_back(schema_.field(c));
      filter_schema_ = Schema(std::move(fields));
    }
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
    // Split 0 starts with the header (already checked by plan_csv_scan); the others start at a
    // record start that the planner found.
    done_ = split.begin == 0 && !records_.next();
  }

  /// Called by one thread at a time.
  std::optional<Batch> next() override {
    if (done_) return std::nullopt;
    std::vector<CsvColumnBuilder> builders;
    builders.reserve(types_.size());
    const int64_t reserve = std::min(batch_rows_, kMaxReserveRows);
    for (const Field& f : schema_.fields()) builders.emplace_back(f.type, reserve);
    int64_t rows = 0;
    while (rows < batch_rows_) {
      if (general_records_left_ == 0) {
        const int64_t want = std::min(batch_rows_ - rows, kMaxRunRows);
        records_.read_plain_run(types_.size(), static_cast<size_t>(want), end_, run_);
        rows += filter_ ? append_filtered_run(builders) : append_run(builders, nullptr);
        if (static_cast<int64_t>(run_.rows) == want) continue;
        // Quote-heavy input makes runs short: parse a stretch of it the general way rather than
        // restart the fast path at every record.
        if (run_.rows < kShortRunRows) general_records_left_ = kGeneralRecordsAfterShortRun;
      } else {
        --general_records_left_;
      }
      // The next record is not plain (quoted, ragged, blank), or the window cuts it.
      if (!records_.next() || (end_ >= 0 && records_.record_offset() >= end_)) {
        done_ = true;  // past the split: the record belongs to the next one
        break;
      }
      append_record(builders);
      ++rows;
    }
    if (rows == 0) return std::nullopt;
    std::vector<Column> columns;
    columns.reserve(builders.size());
    for (CsvColumnBuilder& b : builders) columns.push_back(b.finish());
    return Batch(schema_, std::move(columns));
  }

  int64_t rows_dropped() const override { return dropped_; }
  /// Up to the record it stopped at (its split's end once done).
  int64_t bytes_read() const override {
    const int64_t at =
        end_ >= 0 ? std::min(records_.record_offset(), end_) : records_.record_offset();
    return std::max<int64_t>(0, at - begin_);
  }

 private:
  void append_record(std::vector<CsvColumnBuilder>& builders) {
    const std::vector<CsvField>& fields = records_.fields();
    records_.check_field_count(types_.size());
    for (size_t i = 0; i < types_.size(); ++i) {
      const CsvField& f = fields[i];
      CsvColumnBuilder& b = builders[i];
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
            records_.fail_at_field(i, utf8_error(i));
          }
          b.append_utf8(f.data, f.size);
      }
    }
  }

  /// Parses the latest plain run column by column: one tight loop per column and type. Its
  /// fields lie in the reader's window, whose padding makes the padded parsers safe. Only the
  /// records `keep` lists, when given. Returns the rows appended.
  int64_t append_run(std::vector<CsvColumnBuilder>& builders, const std::vector<uint32_t>* keep) {
    for (size_t c = 0; c < types_.size(); ++c) append_run_column(c, builders[c], keep);
    return keep ? static_cast<int64_t>(keep->size()) : static_cast<int64_t>(run_.rows);
  }

  /// append_run() of the records the filter keeps: the columns it reads first, for every
  /// record (so their values are checked as without a filter), then the rest for those kept.
  int64_t append_filtered_run(std::vector<CsvColumnBuilder>& builders) {
    std::vector<Column> columns;
    for (int c : filter_->columns) {
      CsvColumnBuilder b(schema_.field(c).type, static_cast<int64_t>(run_.rows));
      append_run_column(static_cast<size_t>(c), b, nullptr);
      columns.push_back(b.finish());
    }
    filter_->keep(Batch(filter_schema_, std::move(columns)), keep_);
    kept_.clear();
    for (size_t r = 0; r < run_.rows; ++r)
      if (keep_[r]) kept_.push_back(static_cast<uint32_t>(r));
    if (kept_.size() == run_.rows) return append_run(builders, nullptr);
    dropped_ += static_cast<int64_t>(run_.rows - kept_.size());
    return append_run(builders, &kept_);
  }

  /// Column `c` of the run's records (those in `keep`, when given) into `b`.
  void append_run_column(size_t c, CsvColumnBuilder& b, const std::vector<uint32_t>* keep) {
    {
      switch (types_[c]) {
        case TypeId::Int64:
          for_run_fields(c, b, keep, [&](std::string_view v, size_t r) {
            int64_t x;
            if (!parse_int64_padded(v, x)) records_.fail_in_run(run_, r, c, value_error(c, v));
            b.append_int64(x);
          });
          break;
        case TypeId::Float64:
          for_run_fields(c, b, keep, [&](std::string_view v, size_t r) {
            double x;
            if (!parse_float64_padded(v, x)) records_.fail_in_run(run_, r, c, value_error(c, v));
            b.append_float64(x);
          });
          break;
        case TypeId::Boolean:
          for_run_fields(c, b, keep, [&](std::string_view v, size_t r) {
            bool x;
            if (!parse_bool(v, x)) records_.fail_in_run(run_, r, c, value_error(c, v));
            b.append_bool(x);
          });
          break;
        default:
          b.reserve_chars(run_column_bytes(c), static_cast<int64_t>(run_.rows));
          for_run_fields(c, b, keep, [&](std::string_view v, size_t r) {
            if (run_.non_ascii && !is_valid_utf8(v.data(), v.size())) {
              records_.fail_in_run(run_, r, c, utf8_error(c));
            }
            b.append_utf8(v.data(), static_cast<uint32_t>(v.size()));
          });
      }
    }
  }

  /// Bytes of column `c` over the run's records (an upper bound: a "\r\n" counts its '\r').
  int64_t run_column_bytes(size_t c) const {
    int64_t bytes = 0;
    for (size_t r = 0; r < run_.rows; ++r) {
      const size_t i = r * run_.width + c;
      bytes += run_.ends[i] - (i == 0 ? 0 : run_.ends[i - 1] + 1);
    }
    return bytes;
  }

  /// Column `c` of every record of the run (of those in `keep`, when given): empty is null (a
  /// plain field is never quoted), anything else goes to `append`.
  template <class Append>
  void for_run_fields(size_t c, CsvColumnBuilder& b, const std::vector<uint32_t>* keep,
                      Append&& append) {
    auto one = [&](size_t r) {
      const std::string_view v = run_.field(r, c);
      if (v.empty()) {
        b.append_null();
      } else {
        append(v, r);
      }
    };
    if (keep) {
      for (uint32_t r : *keep) one(r);
    } else {
      for (size_t r = 0; r < run_.rows; ++r) one(r);
    }
  }

  [[noreturn]] void fail_value(size_t i) const {
    records_.fail_at_field(i, value_error(i, records_.fields()[i].view()));
  }

  std::string value_error(size_t i, std::string_view text) const {
    const Field& field = schema_.field(static_cast<int>(i));
    std::string value(text.substr(0, 60));
    const std::string origin =
        declared_ ? "as declared in CsvOptions::schema"
                  : "as inferred from the first rows; set CsvOptions::schema to read the column "
                    "as another type (e.g. utf8)";
    return "value '" + value + "' in column '" + field.name + "' is not a valid " +
           field.type.to_string() + " (" + origin + ")";
  }

  std::string utf8_error(size_t i) const {
    return "invalid UTF-8 in column '" + schema_.field(static_cast<int>(i)).name +
           "' (utf8 columns must hold valid UTF-8 text)";
  }

  CsvRecordReader records_;
  Schema schema_;
  std::vector<TypeId> types_;
  int64_t begin_;
  int64_t end_;
  int64_t batch_rows_;
  bool declared_;
  bool done_ = false;
  CsvPlainRun run_;               ///< reused between runs: its offsets buffer only grows
  int general_records_left_ = 0;  ///< records to parse the general way before the next run
  std::shared_ptr<const CsvRowFilter> filter_;
  Schema filter_schema_;        ///< the columns the filter reads
  std::vector<uint8_t> keep_;   ///< the filter's answer for the run being parsed
  std::vector<uint32_t> kept_;  ///< the run's records it keeps
  int64_t dropped_ = 0;
};

}  // namespace

std::unique_ptr<BatchReader> open_csv_split(const FileSplit& split, const Schema& schema,
                                            const CsvOptions& options, int64_t batch_rows,
                                            std::shared_ptr<const CsvRowFilter> filter) {
  if (split.stream) split.stream->claim_for_reading();
  return std::make_unique<CsvSplitReader>(split, schema, options, batch_rows, std::move(filter));
}

}  // namespace ember
