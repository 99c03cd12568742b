// Type inference over sampled CSV values; see csv_type_inference.h.
#include "io/csv_type_inference.h"

#include "io/scalar_parsing.h"

namespace ember {

void CsvTypeInference::observe(const std::vector<CsvField>& record) {
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
