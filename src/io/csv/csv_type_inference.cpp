// Type inference over sampled CSV values; see csv_type_inference.h.
#include "io/csv/csv_type_inference.h"

#include "io/scalar_parsing.h"

namespace ember {
namespace {

/// An optional '-' and at least one digit: what parse_int64 accepts when the value fits.
bool is_integer_text(std::string_view v) {
  const size_t first = !v.empty() && v[0] == '-' ? 1 : 0;
  if (v.size() == first) return false;
  for (size_t i = first; i < v.size(); ++i) {
    if (v[i] < '0' || v[i] > '9') return false;
  }
  return true;
}

}  // namespace

void CsvTypeInference::observe(const CsvRecordReader& records) {
  const std::vector<CsvField>& record = records.fields();
  for (size_t i = 0; i < columns_.size(); ++i) {
    const CsvField& f = record[i];
    // Empty values are nulls for every type (a quoted "" too, unless the column is utf8), so they
    // are no evidence either way.
    if (f.size == 0) continue;
    Evidence& e = columns_[i];
    e.any = true;
    const std::string_view v = f.view();
    int64_t i64;
    double f64;
    bool b;
    if (e.all_int && !parse_int64(v, i64)) e.all_int = false;
    if (e.all_integer_text && !e.all_int && !is_integer_text(v)) e.all_integer_text = false;
    if (e.all_integer_text && !e.all_int && !e.out_of_range && is_integer_text(v) &&
        !parse_int64(v, i64)) {
      e.out_of_range = records.error_at_field(
          i, "integer " + std::string(v.substr(0, 40)) + " in column '" + names_[i] +
                 "' does not fit int64, and the column's sampled values are all integers; ember "
                 "does not round them to float64 unasked: set CsvOptions::schema to read the "
                 "column as float64 (about 16 significant digits) or utf8 (every digit kept)");
    }
    if (e.all_float && !e.all_int && !parse_float64(v, f64)) e.all_float = false;
    if (e.all_bool && !parse_bool(v, b)) e.all_bool = false;
  }
}

std::vector<DataType> CsvTypeInference::types() const {
  std::vector<DataType> out;
  out.reserve(columns_.size());
  for (const Evidence& e : columns_) {
    if (!e.any) {
      out.push_back(utf8());
    } else if (e.all_int) {
      out.push_back(int64());
    } else if (e.all_integer_text) {
      throw *e.out_of_range;  // integers only, one of them beyond int64
    } else if (e.all_float) {
      out.push_back(float64());
    } else if (e.all_bool) {
      out.push_back(boolean());
    } else {
      out.push_back(utf8());
    }
  }
  return out;
}

}  // namespace ember
