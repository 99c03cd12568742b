// ArrowSource: the planned scan behind the Source interface.
#include "exec/sources/arrow_source.h"

#include "io/file_split.h"

namespace ember {

ArrowSource::ArrowSource(std::string pattern, ArrowOptions options)
    : pattern_(std::move(pattern)),
      options_(std::move(options)),
      scan_(plan_arrow_scan(pattern_, options_.storage)) {
  for (const auto& file : scan_.files) paths_.push_back(arrow_file_path(*file));
}

std::unique_ptr<BatchReader> ArrowSource::open(int p, int64_t batch_rows) const {
  return open_arrow_part(scan_, p, batch_rows);
}

std::string ArrowSource::describe() const {
  return "ArrowScan " + pattern_ + " (" + std::to_string(paths_.size()) + " files, " +
         std::to_string(scan_.parts.size()) + " record batches)";
}

}  // namespace ember
