// Chunks of URLs out to the fetch threads, files back into a binary column, in input order.
#include "exec/operators/url_download_operator.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/buffer_access.h"
#include "core/column_take.h"
#include "ember/error.h"
#include "exec/query_context.h"

namespace ember {

namespace {

/// Chunks a partition holds at once (queued, or in and waiting for their turn).
constexpr size_t kChunksHeld = 4;
/// Rows of a partition's chunks until one of its files has come in.
constexpr int64_t kFirstChunkRows = 4;

}  // namespace

UrlDownloadOperator::UrlDownloadOperator(int download, int url_index, std::string url_name,
                                         DownloadOptions options, Schema output)
    : download_(download),
      url_index_(url_index),
      url_name_(std::move(url_name)),
      options_(options),
      output_(std::move(output)) {}

std::unique_ptr<AsyncOperatorState> UrlDownloadOperator::local_state(
    QueryContext& query, int partition, std::function<void()> wake) const {
  return std::make_unique<DownloadStage>(*this, query, partition, std::move(wake));
}

DownloadStage::DownloadStage(const UrlDownloadOperator& op, QueryContext& query, int partition,
                             std::function<void()> wake)
    : op_(op), query_(query), partition_(partition), wake_(std::move(wake)) {}

int64_t DownloadStage::chunk_rows() const {
  const int64_t most = std::max(1, op_.options().max_connections);
  std::lock_guard<std::mutex> lock(mu_);
  // Until a file has come in its size is anyone's guess: a few rows, not a whole chunk of
  // what may be large files.
  if (files_done_ == 0) return std::min<int64_t>(most, kFirstChunkRows);
  const int64_t mean = std::max<int64_t>(1, file_bytes_ / files_done_);
  return std::clamp<int64_t>(UrlDownloadOperator::kHeldBytes / 4 / mean, 1, most);
}

void DownloadStage::feed(const Batch& input) {
  if (input.num_rows() == 0) return;
  waiting_.push_back(input);
  dispatch_waiting();
}

void DownloadStage::dispatch_waiting() {
  while (!waiting_.empty() && has_room()) {
    Batch& next = waiting_.front();
    const int64_t rows = next.num_rows();
    const int64_t take = std::min(chunk_rows(), rows);
    if (take == rows) {
      dispatch(std::move(next));
      waiting_.pop_front();
    } else {
      dispatch(next.slice(0, take));
      next = next.slice(take, rows - take);
    }
  }
}

bool DownloadStage::has_room() const {
  if (chunks_.size() >= kChunksHeld) return false;
  std::lock_guard<std::mutex> lock(mu_);
  return held_bytes_ < UrlDownloadOperator::kHeldBytes;
}

void DownloadStage::dispatch(Batch rows) {
  const Column& urls = rows.column(op_.url_index());
  const int64_t n = rows.num_rows();
  Chunk& chunk = chunks_.emplace_back();
  chunk.input = std::move(rows);
  chunk.files.resize(static_cast<size_t>(n));
  std::vector<int64_t> fetched;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int64_t i = 0; i < n; ++i) {
      if (urls.is_null(i)) continue;
      fetched.push_back(i);
    }
    chunk.pending = static_cast<int64_t>(fetched.size());
    outstanding_ += chunk.pending;
  }
  QueryContext* query = &query_;
  for (const int64_t i : fetched) {
    UrlFetcher::instance().fetch(
        urls.value<std::string>(i), op_.options().max_connections,
        [query] { return query->cancelled(); },
        [this, &chunk, i](FetchOutcome outcome) { complete(chunk, i, std::move(outcome)); });
  }
}

void DownloadStage::complete(Chunk& chunk, int64_t row, FetchOutcome outcome) {
  // Wake under the lock: once the driver sees outstanding_ == 0 it may end and destroy this
  // stage, so this thread must be done with it by then.
  std::lock_guard<std::mutex> lock(mu_);
  if (outcome.bytes) {
    const auto size = static_cast<int64_t>(outcome.bytes->size());
    chunk.bytes += size;
    held_bytes_ += size;
    ++files_done_;
    file_bytes_ += size;
    chunk.files[static_cast<size_t>(row)] = std::move(outcome.bytes);
  } else {
    chunk.failures.emplace_back(row, std::move(outcome.error));
  }
  --outstanding_;
  if (--chunk.pending == 0) wake_();
}

bool DownloadStage::can_accept() const { return waiting_.empty() && has_room(); }

int64_t DownloadStage::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return outstanding_;
}

std::optional<Batch> DownloadStage::next_ready() {
  if (chunks_.empty()) return std::nullopt;
  Chunk& chunk = chunks_.front();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (chunk.pending > 0) return std::nullopt;
    held_bytes_ -= chunk.bytes;
  }
  Chunk done = std::move(chunk);
  chunks_.pop_front();
  report_failures(done);
  dispatch_waiting();  // the room this chunk held goes to the rows waiting for it
  return assemble(done);
}

void DownloadStage::report_failures(Chunk& chunk) {
  const int64_t seq = chunks_emitted_++;
  if (chunk.failures.empty()) return;
  std::sort(chunk.failures.begin(), chunk.failures.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  if (op_.options().on_error == OnError::Raise)
    throw IoError("url_download of " + op_.url_name() + ": " + chunk.failures.front().second);
  std::vector<int64_t> rows;
  std::vector<std::string> errors;
  for (auto& [row, error] : chunk.failures) {
    rows.push_back(row);
    errors.push_back(std::move(error));
  }
  Batch urls(Schema({{"url", utf8()}}), {take_rows(chunk.input.column(op_.url_index()), rows)});
  query_.download_rejected(op_.download()).add(partition_, seq, urls, errors);
}

Batch DownloadStage::assemble(Chunk& chunk) const {
  const int64_t n = chunk.input.num_rows();
  if (chunk.bytes > std::numeric_limits<int32_t>::max()) {
    // A binary column's offsets are 32-bit: a file (or a chunk of them) past 2 GiB cannot be
    // one of its values.
    throw IoError("url_download of " + op_.url_name() + ": " + std::to_string(chunk.bytes) +
                  " bytes in one batch; a binary value holds at most 2 GiB");
  }
  auto validity = Buffer::allocate((n + 7) / 8);
  auto offsets = detail::BufferAccess::allocate_uninitialized((n + 1) * 4);
  auto data = detail::BufferAccess::allocate_uninitialized(std::max<int64_t>(chunk.bytes, 1));
  uint8_t* valid = detail::BufferAccess::mutable_data(*validity);
  auto* offset = reinterpret_cast<int32_t*>(detail::BufferAccess::mutable_data(*offsets));
  uint8_t* out = detail::BufferAccess::mutable_data(*data);
  int64_t nulls = 0;
  int32_t at = 0;
  offset[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::optional<std::string>& file = chunk.files[static_cast<size_t>(i)];
    if (file) {
      valid[i / 8] = static_cast<uint8_t>(valid[i / 8] | (1u << (i % 8)));
      std::memcpy(out + at, file->data(), file->size());
      at += static_cast<int32_t>(file->size());
      file.reset();
    } else {
      ++nulls;
    }
    offset[i + 1] = at;
  }
  std::vector<Column> columns = chunk.input.columns();
  columns.push_back(Column::from_buffers(binary(), n, nulls, nulls > 0 ? validity : nullptr,
                                         std::move(offsets), std::move(data)));
  return Batch(op_.output(), std::move(columns));
}

}  // namespace ember
