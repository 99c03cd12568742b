// The values of row i of the table write_parquet_with_duckdb.mjs writes, by the same formulas,
// as ember reads them (int16/int32 as int32, decimals as float64, dates as date32).
#pragma once

#include <string>
#include <vector>

#include "ember/batch.h"
#include "ember/types.h"

namespace ember::interop {

inline const std::vector<std::string>& duckdb_columns() {
  static const std::vector<std::string> names = {"id", "i32", "f64", "f32",  "s",
                                                 "u",  "b",   "ts",  "i16",  "dec",
                                                 "d",  "bin", "xs",  "tags", "emb"};
  return names;
}

inline std::vector<Value> duckdb_row(int64_t i) {
  constexpr int64_t kJan2024 = 1704067200000000;  // 2024-01-01 in microseconds
  const Value null;
  std::vector<Value> r;
  r.push_back(i);
  r.push_back(i % 7 == 0 ? null : Value(int64_t{i * 3 - 100}));
  r.push_back(i % 5 == 0 ? null : Value(double(i) * 1.5));
  r.push_back(Value(float(double(i) / 4.0)));
  r.push_back(i % 11 == 0 ? null : Value("word" + std::to_string(i % 13)));
  r.push_back(Value("unique-" + std::to_string(i)));
  r.push_back(i % 17 == 0 ? null : Value(i % 3 == 0));
  r.push_back(Value(Timestamp{kJan2024 + i * 1000000}));
  r.push_back(Value(int64_t{i % 100}));
  r.push_back(Value(double(i % 1000) / 100.0));
  r.push_back(Value(Date{int32_t(kJan2024 / (86400 * int64_t{1000000}) + i % 30)}));
  const std::string b = "b" + std::to_string(i);
  r.push_back(Value(std::vector<uint8_t>(b.begin(), b.end())));
  if (i % 4 == 0) {
    r.push_back(null);
  } else {
    List xs{{}, int64()};
    for (int64_t x = 0; x < i % 4; ++x) xs.items.push_back(x * i);
    r.push_back(Value(xs));
  }
  if (i % 6 == 0) {
    r.push_back(null);
  } else {
    r.push_back(Value(List{{"t" + std::to_string(i % 3), null, "u" + std::to_string(i)}, utf8()}));
  }
  r.push_back(Value(List{{float(i) * 1.0f, float(i) * 2.0f, null}, float32()}));
  return r;
}

/// Empty when every row of `t` (ordered by id, all columns) matches; else the first mismatch.
inline std::string duckdb_mismatch(const Table& t, int64_t rows) {
  if (t.num_rows() != rows)
    return "rows: " + std::to_string(t.num_rows()) + " != " + std::to_string(rows);
  std::vector<Column> cols;
  for (const std::string& name : duckdb_columns()) cols.push_back(t.column(name));
  for (int64_t i = 0; i < rows; ++i) {
    const std::vector<Value> want = duckdb_row(i);
    for (size_t c = 0; c < cols.size(); ++c) {
      const Value got = cols[c].get(i);
      if (!(got == want[c]))
        return "row " + std::to_string(i) + " column " + duckdb_columns()[c] + ": got " +
               to_string(got) + ", want " + to_string(want[c]);
    }
  }
  return "";
}

}  // namespace ember::interop
