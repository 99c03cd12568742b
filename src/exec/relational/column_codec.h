// Columns as bytes: a small header per column (length, null count, offset, buffer sizes) and
// then its Arrow buffers as they are, a list's items and a struct's fields after it. Spill files
// write them to disk; a partition's sorted rows travel between ranks in them. Reading back is
// one copy per buffer and no parsing.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ember/column.h"

namespace ember {

/// The column with buffers of its own rows only (a slice of a larger column is copied out), so
/// that put_column writes its rows and nothing else.
Column compacted(const Column& c);

/// Writes `c` (compacted) through `put(const void* data, size_t n)`.
void put_column(const Column& c, const std::function<void(const void*, size_t)>& put);

/// Reads a column of `type` that put_column wrote through `get(void* data, size_t n)`.
Column get_column(const DataType& type, const std::function<void(void*, size_t)>& get);

/// `columns` (equal lengths) appended to `out` as put_column writes them, each compacted first.
void append_columns(const std::vector<Column>& columns, std::string& out);

/// Columns of `types` that append_columns wrote at the start of `in`, which moves past them.
/// Error when `in` is shorter than they say.
std::vector<Column> read_columns(std::string_view& in, const std::vector<DataType>& types);

}  // namespace ember
