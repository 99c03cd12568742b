// Each partition streams into one writer, committed (renamed into place) when it finishes.
#include "exec/sinks/file_sink.h"

#include <atomic>
#include <filesystem>
#include <system_error>

#include "ember/error.h"

namespace ember {

namespace {

struct PartsWritten final : GlobalSinkState {
  explicit PartsWritten(int n) : num_partitions(n) {}
  int num_partitions;
  std::atomic<int> parts{0};
  std::atomic<int64_t> bytes{0};  ///< of the parts committed here
};

void count_bytes(PartsWritten& written, const std::string& path) {
  std::error_code ec;  // the part is in place: its size is only counted
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec) written.bytes.fetch_add(static_cast<int64_t>(size), std::memory_order_relaxed);
}

}  // namespace

struct FileSink::PartWriter final : LocalSinkState {
  PartWriter(std::unique_ptr<PartitionWriter> w, std::string p)
      : writer(std::move(w)), path(std::move(p)) {}
  std::unique_ptr<PartitionWriter> writer;
  std::string path;  ///< the part's file once committed
  // A resumable write's partition:
  int partition = 0;
  bool finished_before = false;  ///< an earlier run wrote all of it
  int files = 0;                 ///< piece files it has, from earlier runs and this one
  int64_t rows = 0;              ///< in the open piece
  int64_t input_end = 0;         ///< input rows consumed at the last checkpoint
};

std::unique_ptr<GlobalSinkState> FileSink::global_state(int num_partitions) const {
  return std::make_unique<PartsWritten>(num_partitions);
}

std::unique_ptr<LocalSinkState> FileSink::local_state(GlobalSinkState&, int partition) const {
  if (!pieces_)
    return std::make_unique<PartWriter>(
        open_partition_writer(dir_, partition, schema_, format_, options_),
        (std::filesystem::path(dir_) / part_file_name(partition, format_)).string());
  // Pieces open as their first rows come, after what earlier runs finished.
  auto part = std::make_unique<PartWriter>(nullptr, "");
  part->partition = partition;
  const auto& recovered = *pieces_->recovered;
  if (auto it = recovered.find(partition);
      partition < pieces_->kept_below && it != recovered.end()) {
    part->finished_before = it->second.finished;
    part->input_end = it->second.input_end();
    for (const JournalPiece& p : it->second.pieces) part->files += p.file.empty() ? 0 : 1;
  }
  return part;
}

PartitionStart FileSink::start_of(const GlobalSinkState&, int partition) const {
  if (!pieces_ || partition >= pieces_->kept_below) return {};
  const auto& recovered = *pieces_->recovered;
  auto it = recovered.find(partition);
  if (it == recovered.end()) return {};
  return {it->second.finished, it->second.input_end()};
}

int64_t FileSink::checkpoint_rows(const GlobalSinkState&) const {
  return pieces_ ? pieces_->checkpoint_rows : 0;
}

void FileSink::sink(GlobalSinkState&, LocalSinkState& local, const Batch& batch) const {
  auto& part = local.as<PartWriter>();
  if (!part.writer) open_piece(part);
  part.writer->write(batch);
  part.rows += batch.num_rows();
}

void FileSink::open_piece(PartWriter& part) const {
  const std::string name = pieces_->checkpoint_rows > 0
                               ? piece_file_name(part.partition, part.files, format_)
                               : part_file_name(part.partition, format_);
  part.writer = open_part_writer(dir_, name, schema_, format_, options_);
  part.path = (std::filesystem::path(dir_) / name).string();
}

void FileSink::journal_piece(GlobalSinkState& global, PartWriter& part, bool last) const {
  JournalPiece piece{part.partition, part.input_end, part.rows, 0, "", last};
  if (part.writer) {
    part.writer->commit();  // fsynced and renamed into place before the journal names it
    part.writer.reset();
    std::error_code ec;
    piece.bytes = static_cast<int64_t>(std::filesystem::file_size(part.path, ec));
    if (ec) throw IoError("cannot read the size of '" + part.path + "': " + ec.message());
    piece.file = std::filesystem::path(part.path).filename().string();
    global.as<PartsWritten>().bytes.fetch_add(piece.bytes, std::memory_order_relaxed);
    ++part.files;
  }
  // Written but not journaled: a rerun computes it again (and removes its file first).
  if (part.partition < pieces_->kept_below && (!pieces_->journals || pieces_->journals()))
    pieces_->append(piece);
  part.rows = 0;
}

void FileSink::checkpoint(GlobalSinkState& global, LocalSinkState& local,
                          int64_t input_rows) const {
  if (!pieces_) return;
  auto& part = local.as<PartWriter>();
  part.input_end = input_rows;
  journal_piece(global, part, false);
}

void FileSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  auto& part = local.as<PartWriter>();
  auto& written = global.as<PartsWritten>();
  if (pieces_ && !part.finished_before) {
    if (!part.writer && part.files == 0) open_piece(part);  // an empty partition has its file
    journal_piece(global, part, true);
  } else if (!pieces_) {
    part.writer->commit();
    count_bytes(written, part.path);
    if (uploads_) uploads_->add(std::filesystem::path(part.path).filename().string());
  }
  written.parts.fetch_add(1, std::memory_order_release);
}

void FileSink::adopt_part(GlobalSinkState& global) const {
  global.as<PartsWritten>().parts.fetch_add(1, std::memory_order_release);
}

void FileSink::journal_adopted(int partition, int64_t rows) const {
  if (!pieces_) return;
  const std::string name = part_file_name(partition, format_);
  const std::string path = (std::filesystem::path(dir_) / name).string();
  std::error_code ec;
  const auto bytes = static_cast<int64_t>(std::filesystem::file_size(path, ec));
  if (ec) throw IoError("cannot read the size of '" + path + "': " + ec.message());
  pieces_->append({partition, 0, rows, bytes, name, true});
}

int64_t FileSink::bytes_written(const GlobalSinkState& global) const {
  return global.as<PartsWritten>().bytes.load(std::memory_order_relaxed);
}

Table FileSink::finalize(GlobalSinkState& global) const {
  const auto& written = global.as<PartsWritten>();
  const int parts = written.parts.load(std::memory_order_acquire);
  // Broken invariant: the pipeline ended without an error but some partition never finished.
  if (parts != written.num_partitions)
    throw Error("internal: only " + std::to_string(parts) + " of " +
                std::to_string(written.num_partitions) +
                " output files were written; the output directory is left as it was");
  return Table(schema_, {});
}

}  // namespace ember
