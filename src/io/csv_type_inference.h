// Choosing each CSV column's type from a sample of its values.
#pragma once

#include <cstddef>
#include <vector>

#include "ember/types.h"
#include "io/csv_record_reader.h"

namespace ember {

/// Gathers evidence from sampled records and picks, per column, the narrowest type every
/// non-empty value parses as: int64, else float64, else bool (true/false in any case), else
/// utf8. A column with no non-empty value in the sample is utf8.
class CsvTypeInference {
 public:
  explicit CsvTypeInference(size_t num_columns) : columns_(num_columns) {}
  /// One sampled record; it must have `num_columns` fields.
  void observe(const std::vector<CsvField>& record);
  std::vector<DataType> types() const;

 private:
  struct Evidence {
    bool any = false;  ///< a non-empty value was seen
    bool all_int = true;
    bool all_float = true;
    bool all_bool = true;
  };
  std::vector<Evidence> columns_;
};

}  // namespace ember
