// SpilledRun: chunked writing, and a RunChunks that reads the chunks back.
#include "exec/relational/spilled_run.h"

#include <algorithm>

namespace ember {

namespace {

class SpilledChunks final : public RunChunks {
 public:
  SpilledChunks(std::unique_ptr<SpillFile> file, std::vector<DataType> types, Schema schema)
      : file_(std::move(file)), types_(std::move(types)), schema_(std::move(schema)) {}
  std::optional<SortedRun> next() override {
    if (!file_) return std::nullopt;
    std::optional<std::vector<Column>> columns = file_->read_next(types_);
    if (!columns) {
      file_.reset();  // removes the file
      return std::nullopt;
    }
    const auto width = static_cast<std::ptrdiff_t>(schema_.num_fields());
    SortedRun chunk;
    chunk.rows = Batch(schema_, std::vector<Column>(columns->begin(), columns->begin() + width));
    chunk.keys.assign(columns->begin() + width, columns->end());
    return chunk;
  }

 private:
  std::unique_ptr<SpillFile> file_;
  std::vector<DataType> types_;
  Schema schema_;
};

}  // namespace

SpilledRun SpilledRun::write(const SortedRun& run) {
  SpilledRun out;
  out.file_ = std::make_unique<SpillFile>();
  std::vector<Column> columns = run.rows.columns();
  columns.insert(columns.end(), run.keys.begin(), run.keys.end());
  for (const Column& c : columns) out.types_.push_back(c.type());
  const int64_t rows = run.rows.num_rows();
  const int64_t bytes = std::max<int64_t>(1, run.rows.byte_size());
  const int64_t chunk = std::max<int64_t>(1024, rows * kSpilledChunkBytes / bytes);
  for (int64_t at = 0; at < rows; at += chunk) {
    std::vector<Column> piece;
    for (const Column& c : columns) piece.push_back(c.slice(at, std::min(chunk, rows - at)));
    out.file_->write(piece);
  }
  return out;
}

std::unique_ptr<RunChunks> SpilledRun::read(const Schema& schema) {
  return std::make_unique<SpilledChunks>(std::move(file_), std::move(types_), schema);
}

}  // namespace ember
