// plan_csv_scan: expands the glob, settles the schema, checks headers and cuts splits.
#include "io/csv/csv_scan.h"

#include <map>
#include <optional>

#include "ember/error.h"
#include "io/csv/csv_record_reader.h"
#include "io/csv/csv_record_starts.h"
#include "io/csv/csv_type_inference.h"
#include "io/stream_input.h"
#include "io/utf8_validation.h"

namespace ember {
namespace {

/// "'a' (columns 1 and 3), 'b' (columns 2, 4 and 5)" for the names that repeat, or "".
std::string repeated_names(const std::vector<std::string>& names) {
  std::map<std::string, std::vector<size_t>> columns;
  for (size_t i = 0; i < names.size(); ++i) columns[names[i]].push_back(i + 1);
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::vector<size_t>& at = columns[names[i]];
    if (at.size() < 2 || at.front() != i + 1) continue;  // once, or not the first occurrence
    out += (out.empty() ? "'" : ", '") + names[i] + "' (columns ";
    for (size_t k = 0; k < at.size(); ++k) {
      out += (k == 0 ? "" : k + 1 == at.size() ? " and " : ", ") + std::to_string(at[k]);
    }
    out += ")";
  }
  return out;
}

void validate_options(const CsvOptions& options) {
  const char d = options.delimiter;
  if (d == '"' || d == '\n' || d == '\r' || d == '\0') {
    throw InvalidArgument("CsvOptions::delimiter cannot be a quote, a line break or NUL");
  }
  if (options.infer_rows < 0) throw InvalidArgument("CsvOptions::infer_rows must be >= 0");
  if (options.split_bytes < 0) throw InvalidArgument("CsvOptions::split_bytes must be >= 0");
  if (options.schema && options.schema->num_fields() == 0) {
    throw InvalidArgument("CsvOptions::schema has no fields");
  }
  if (options.schema) {
    std::vector<std::string> names;
    for (const Field& f : options.schema->fields()) {
      names.push_back(f.name);
      const TypeId id = f.type.id();
      if (id != TypeId::Int64 && id != TypeId::Float64 && id != TypeId::Boolean &&
          id != TypeId::Utf8) {
        throw InvalidArgument("CSV column '" + f.name + "' cannot be read as " +
                              f.type.to_string() +
                              "; use int64, float64, bool or utf8 and cast() afterwards");
      }
    }
    const std::string repeated = repeated_names(names);
    if (!repeated.empty()) {
      throw InvalidArgument("CsvOptions::schema names a column more than once: " + repeated +
                            "; column names must be unique");
    }
  }
}

std::vector<std::string> read_header(CsvRecordReader& records) {
  if (!records.next()) {
    throw ParseError::at(records.path(), 1, 1, "empty file, expected a header row");
  }
  std::vector<std::string> names;
  const auto& fields = records.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!is_valid_utf8(fields[i].data, fields[i].size)) {
      records.fail_at_field(i, "invalid UTF-8 in the header");
    }
    names.emplace_back(fields[i].view());
  }
  return names;
}

/// Names from the header must be unique: with two columns called "a", col("a") would pick one
/// of them in silence. (CsvOptions::schema names the columns instead, so repeats are fine then.)
void check_unique(const std::vector<std::string>& header, const std::string& path) {
  const std::string repeated = repeated_names(header);
  if (repeated.empty()) return;
  throw InvalidArgument("the header of '" + path + "' names a column more than once: " + repeated +
                        "; rename the columns in the file, or set CsvOptions::schema to name "
                        "them (it replaces the header's names)");
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// Feeds up to `rows` records after the header to `inference`, checking their width. Returns
/// how many were fed.
int64_t sample_records(CsvRecordReader& records, int64_t rows, size_t width,
                       CsvTypeInference& inference) {
  int64_t fed = 0;
  for (; fed < rows && records.next(); ++fed) {
    records.check_field_count(width);
    inference.observe(records);
  }
  return fed;
}

Schema make_schema(const std::vector<std::string>& header, const CsvOptions& options,
                   const CsvTypeInference* inference, const std::string& first_path) {
  if (options.schema) {
    if (static_cast<size_t>(options.schema->num_fields()) != header.size()) {
      throw ParseError::at(first_path, 1, 1,
                           "the header has " + std::to_string(header.size()) +
                               " columns but CsvOptions::schema has " +
                               std::to_string(options.schema->num_fields()));
    }
    return *options.schema;
  }
  const std::vector<DataType> types = inference->types();
  std::vector<Field> fields;
  for (size_t i = 0; i < header.size(); ++i) fields.push_back(Field{header[i], types[i]});
  return Schema(std::move(fields));
}

}  // namespace

CsvScan plan_csv_scan(const std::string& path_or_glob, const CsvOptions& options) {
  validate_options(options);
  const std::vector<FoundFile> found = expand_files(path_or_glob, options.storage);
  std::vector<std::string> paths;
  for (const FoundFile& f : found) paths.push_back(f.path);
  std::vector<std::string> first_header;
  std::optional<CsvTypeInference> inference;
  int64_t sampled = 0;
  CsvScan scan;
  for (size_t f = 0; f < paths.size(); ++f) {
    const std::string& path = paths[f];
    // A pipe or device is opened once, here, and its sampled bytes kept for its reader.
    FileSplit whole{path, 0, -1, nullptr, found[f].size, options.storage};
    if (is_stream_file(path)) whole.stream = std::make_shared<StreamInput>(path);
    CsvRecordReader records(whole, options.delimiter);
    std::vector<std::string> header = read_header(records);
    if (f == 0) {
      first_header = std::move(header);
      if (!options.schema) {
        check_unique(first_header, path);
        inference.emplace(first_header);
      }
    } else if (header != first_header) {
      throw ParseError::at(path, 1, 1,
                           "header (" + join(header) + ") differs from the header of '" + paths[0] +
                               "' (" + join(first_header) +
                               "); every file of a glob must have the same columns");
    }
    // Inference takes the first infer_rows rows (of the first files, when the first is short).
    if (inference && sampled < options.infer_rows) {
      sampled +=
          sample_records(records, options.infer_rows - sampled, first_header.size(), *inference);
    }
    if (whole.stream) {
      whole.stream->stop_keeping();
      scan.splits.push_back(std::move(whole));  // a stream cannot seek: one split
      continue;
    }
    // A quoted field may hold line breaks anywhere in the file, so the cut points of a large
    // file move to record starts found by following its quoting from the first byte.
    const int64_t size = found[f].size >= 0 ? found[f].size : file_size(path);
    const std::vector<int64_t> cuts = cut_offsets(size, options.split_bytes);
    const std::vector<int64_t> starts =
        cuts.empty() ? cuts
                     : find_csv_record_starts(path, options.delimiter, cuts, options.storage, size);
    for (FileSplit& s : splits_at(path, starts, size, options.storage))
      scan.splits.push_back(std::move(s));
  }
  scan.schema = make_schema(first_header, options, inference ? &*inference : nullptr, paths[0]);
  return scan;
}

}  // namespace ember
