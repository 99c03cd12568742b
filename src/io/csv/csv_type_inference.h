// Choosing each CSV column's type from a sample of its values.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember/types.h"
#include "io/csv/csv_record_reader.h"

namespace ember {

/// Gathers evidence from sampled records and picks, per column, the narrowest type every
/// non-empty value parses as: int64, else float64, else bool (true/false in any case), else
/// utf8. A column with no non-empty value in the sample is utf8.
///
/// Integers beyond int64 are never rounded to float64 in silence: a column whose sampled values
/// are all integers, one of them out of int64's range, is a ParseError at that value (the user
/// chooses float64 or utf8 through CsvOptions::schema). A column in which some value is written
/// as a float ("1.5", "2e3") is float64 as before, big integers included.
class CsvTypeInference {
 public:
  /// `names`: the header, for error messages.
  explicit CsvTypeInference(std::vector<std::string> names)
      : names_(std::move(names)), columns_(names_.size()) {}
  /// The current record of `records`; it must have one field per column.
  void observe(const CsvRecordReader& records);
  /// Throws the ParseError of a column of integers with one beyond int64.
  std::vector<DataType> types() const;

 private:
  struct Evidence {
    bool any = false;  ///< a non-empty value was seen
    bool all_int = true;
    bool all_integer_text = true;  ///< every value is written as an integer, in range or not
    bool all_float = true;
    bool all_bool = true;
    std::optional<ParseError> out_of_range;  ///< at the first integer beyond int64
  };
  std::vector<std::string> names_;
  std::vector<Evidence> columns_;
};

}  // namespace ember
