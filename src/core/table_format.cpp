// Table::to_string: an aligned, human-readable text rendering of the first rows of a table.
#include <algorithm>
#include <string>
#include <vector>

#include "ember/batch.h"

namespace ember {

namespace {

constexpr int64_t kMaxCellChars = 40;
const char* const kEllipsis = "\xE2\x80\xA6";  // "…"

// Display width in code points (UTF-8 continuation bytes take no column).
int64_t display_width(const std::string& s) {
  int64_t n = 0;
  for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
  return n;
}

// One cell: control characters made visible and long text cut at a code-point boundary.
std::string render_cell(const Value& v) {
  if (!std::holds_alternative<std::string>(v)) return to_string(v);
  std::string out;
  int64_t width = 0;
  for (unsigned char ch : std::get<std::string>(v)) {
    const bool starts_code_point = (ch & 0xC0) != 0x80;
    if (starts_code_point && width == kMaxCellChars - 1) {
      out += kEllipsis;
      return out;
    }
    if (ch == '\n')
      out += "\\n";
    else if (ch == '\t')
      out += "\\t";
    else if (ch == '\r')
      out += "\\r";
    else
      out += static_cast<char>(ch);
    width += starts_code_point ? (ch == '\n' || ch == '\t' || ch == '\r' ? 2 : 1) : 0;
  }
  return out;
}

// "1234567" -> "1,234,567".
std::string with_thousands(int64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  const size_t first = digits[0] == '-' ? 1 : 0;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > first && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void append_padded(std::string& line, const std::string& cell, int64_t width, bool right) {
  const std::string pad(static_cast<size_t>(width - display_width(cell)), ' ');
  line += right ? pad + cell : cell + pad;
}

std::string join_line(const std::vector<std::string>& cells, const std::vector<int64_t>& widths,
                      const std::vector<bool>& right) {
  std::string line;
  for (size_t c = 0; c < cells.size(); ++c) {
    if (c > 0) line += "  ";
    append_padded(line, cells[c], widths[c], right[c]);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

}  // namespace

std::string Table::to_string(int64_t max_rows) const {
  const size_t ncols = static_cast<size_t>(schema_.num_fields());
  const int64_t shown = max_rows < 0 ? num_rows_ : std::min(max_rows, num_rows_);
  std::vector<std::vector<std::string>> rows;
  rows.reserve(static_cast<size_t>(shown));
  for (const Batch& b : batches_) {
    for (int64_t r = 0; r < b.num_rows() && static_cast<int64_t>(rows.size()) < shown; ++r) {
      std::vector<std::string> row(ncols);
      for (size_t c = 0; c < ncols; ++c) row[c] = render_cell(b.column(int(c)).get(r));
      rows.push_back(std::move(row));
    }
  }
  std::vector<std::string> names(ncols), types(ncols), rules(ncols);
  std::vector<int64_t> widths(ncols);
  std::vector<bool> right(ncols);
  for (size_t c = 0; c < ncols; ++c) {
    const Field& f = schema_.field(int(c));
    names[c] = f.name;
    types[c] = f.type.to_string();
    right[c] = f.type.is_numeric();
    widths[c] = std::max(display_width(names[c]), display_width(types[c]));
    for (const auto& row : rows) widths[c] = std::max(widths[c], display_width(row[c]));
    rules[c] = std::string(static_cast<size_t>(widths[c]), '-');
  }
  std::string out;
  if (ncols > 0) {
    out += join_line(names, widths, right);
    out += join_line(types, widths, right);
    out += join_line(rules, widths, right);
    for (const auto& row : rows) out += join_line(row, widths, right);
  }
  if (shown < num_rows_)
    out += std::string(kEllipsis) + " " + with_thousands(num_rows_ - shown) + " more rows\n";
// GCC 12 reports a false -Wrestrict inside std::string's inlined insert here (GCC bug
// 105651): the source and destination are distinct strings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
  out += "(" + with_thousands(num_rows_) + (num_rows_ == 1 ? " row)" : " rows)");
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  return out;
}

}  // namespace ember
