// Moving columns through a shared region: lay them out, copy them in once, and rebuild them on
// the other side either zero-copy (wrapping the mapping) or as a private copy.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ember/column.h"
#include "udf/process/shared_region.h"
#include "udf/process/wire_message.h"

namespace ember::process {

/// Plans where `columns` go in a region: one descriptor per column (buffers 64-byte aligned,
/// padded to whole cache lines). Returns the region bytes needed. Every type crosses: a list's
/// (or map's) item column is laid out in the same region, its descriptor in the list's `data`
/// buffer; a struct's type is in its `values` buffer, its fields' descriptors in `data`.
int64_t plan_columns(const std::vector<Column>& columns, std::vector<ColumnDesc>* descs);

/// Copies each column's bytes to where `descs` (from plan_columns) says, inside `base`.
/// `region_at`: where `base` lies in the mapping the receiver wraps (a region after other
/// bytes); the descriptors written inside the region (a list's items', a struct's fields')
/// count from the mapping's start, as the caller must shift `descs` themselves.
void copy_columns(const std::vector<Column>& columns, const std::vector<ColumnDesc>& descs,
                  uint8_t* base, uint64_t region_at = 0);

/// The column `desc` describes, viewing `map` without a copy; the column keeps `map` alive.
/// Throws Error when the descriptor does not fit the region (a corrupt message).
Column wrap_column(const ColumnDesc& desc, const std::shared_ptr<SharedMapping>& map);

/// The column `desc` describes, copied out of `map` into private memory.
Column copy_column(const ColumnDesc& desc, const SharedMapping& map);

}  // namespace ember::process
