// A utf8 (or binary) column written row by row into two growing arrays, offsets and characters,
// then handed to a Column without building a std::string per row.
#pragma once

#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "ember/column.h"
#include "ember/error.h"
#include "expr/kernel_input.h"

namespace ember {

class Utf8Output {
 public:
  /// Room for `rows` rows and about `bytes` characters.
  Utf8Output(int64_t rows, size_t bytes) {
    offsets_.reserve(size_t(rows) + 1);
    offsets_.push_back(0);
    chars_.reserve(bytes);
  }
  /// The characters so far: a row appends to them, then calls end_row().
  std::string& chars() { return chars_; }
  /// Appends `s` to the current row.
  void append(std::string_view s) { chars_.append(s); }
  /// Ends the current row.
  void end_row() {
    if (chars_.size() > size_t(std::numeric_limits<int32_t>::max())) {
      throw InvalidArgument("a text result holds more than 2 GiB in one batch");
    }
    offsets_.push_back(static_cast<int32_t>(chars_.size()));
  }
  /// Ends the current row as a null.
  void null_row() {
    if (null_rows_.empty()) null_rows_.assign(offsets_.capacity(), 0);
    const size_t row = offsets_.size() - 1;
    if (row >= null_rows_.size()) null_rows_.resize(row + 1, 0);
    null_rows_[row] = 1;
    end_row();
  }
  /// The column (of `type`: utf8 or binary); its rows are null where `validity` (nullptr: all
  /// valid) says so or null_row() ended them.
  Column finish(DataType type, std::shared_ptr<Buffer> validity) {
    const int64_t n = int64_t(offsets_.size()) - 1;
    if (!null_rows_.empty()) {
      null_rows_.resize(size_t(n), 0);
      const uint8_t* nr = null_rows_.data();
      auto mine = kernel::bits_where(n, [nr](int64_t i) { return nr[i] == 0; });
      validity = bitmap::and_of(mine->data(), 0, validity ? validity->data() : nullptr, 0, n);
    }
    return Column::from_buffers(std::move(type), n, -1, std::move(validity),
                                copied(offsets_.data(), offsets_.size() * sizeof(int32_t)),
                                copied(chars_.data(), chars_.size()));
  }

 private:
  static std::shared_ptr<Buffer> copied(const void* p, size_t bytes) {
    auto b = detail::BufferAccess::allocate_uninitialized(int64_t(bytes));
    if (bytes) std::memcpy(detail::BufferAccess::mutable_data(*b), p, bytes);
    return b;
  }
  std::vector<int32_t> offsets_;
  std::string chars_;
  std::vector<uint8_t> null_rows_;
};

}  // namespace ember
