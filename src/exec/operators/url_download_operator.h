// Expr::url_download as a pipeline stage: each partition hands its rows' URLs to the process's
// fetch threads (io/storage/url_fetcher.h) and emits its batches in input order as their files
// arrive, so that downloads overlap with whatever runs above (a UDF reading the bytes).
#pragma once

#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ember/download_options.h"
#include "exec/async_operator.h"
#include "io/storage/url_fetcher.h"

namespace ember {

/// Appends the bytes of the file each row's URL names. Plain data; see DownloadStage.
class UrlDownloadOperator final : public AsyncOperator {
 public:
  /// `download`: the step's number in PhysicalPlan::downloads; `url_index`: the input column of
  /// URLs; `output`: the input schema plus the bytes column.
  UrlDownloadOperator(int download, int url_index, std::string url_name, DownloadOptions options,
                      Schema output);
  std::unique_ptr<AsyncOperatorState> local_state(QueryContext& query, int partition,
                                                  std::function<void()> wake) const override;

  int download() const { return download_; }
  int url_index() const { return url_index_; }
  const std::string& url_name() const { return url_name_; }
  const DownloadOptions& options() const { return options_; }
  const Schema& output() const { return output_; }

  /// The downloaded bytes a partition holds at most, beyond one file (batches shrink to fit).
  static constexpr int64_t kHeldBytes = int64_t{64} << 20;

 private:
  int download_;
  int url_index_;
  std::string url_name_;
  DownloadOptions options_;
  Schema output_;
};

/// One partition's downloads. Input rows are cut into chunks of up to max_connections rows
/// (4 until a file has come in; fewer when the files seen so far are large: a chunk aims at
/// kHeldBytes / 4), every URL of a chunk is queued at once, and a chunk is emitted, in input
/// order, once all its files are in. At most 4 chunks and kHeldBytes of files are held: the
/// rest of a large input batch waits here, undispatched, and feeding stops until it is gone.
/// Under OnError::Null each row whose file could not be fetched is recorded, with its URL and
/// error, in QueryContext::download_rejected (QueryResult::rejected) as its chunk is emitted.
class DownloadStage final : public AsyncOperatorState {
 public:
  DownloadStage(const UrlDownloadOperator& op, QueryContext& query, int partition,
                std::function<void()> wake);

  void feed(const Batch& input) override;
  void flush() override { flushed_ = true; }
  bool flushed() const override { return flushed_; }
  bool can_accept() const override;
  /// Throws IoError (under OnError::Raise) naming the first URL of the chunk that failed.
  std::optional<Batch> next_ready() override;
  bool drained() const override { return flushed_ && chunks_.empty() && waiting_.empty(); }
  void release_held() override {}
  bool caught_up() const override { return chunks_.empty() && waiting_.empty(); }
  int64_t in_flight() const override;

 private:
  struct Chunk {
    Batch input;
    std::vector<std::optional<std::string>> files;  ///< by row; nullopt: a null
    int64_t pending = 0;                            ///< fetches not yet ended
    int64_t bytes = 0;
    /// The rows whose fetch failed, with their messages, in the order the fetches ended.
    std::vector<std::pair<int64_t, std::string>> failures;
  };
  /// Cuts waiting rows into chunks and dispatches them while there is room.
  void dispatch_waiting();
  bool has_room() const;
  void dispatch(Batch rows);
  void complete(Chunk& chunk, int64_t row, FetchOutcome outcome);
  Batch assemble(Chunk& chunk) const;
  /// Raises the chunk's first failed row (by row order), or records every one (Null).
  void report_failures(Chunk& chunk);
  int64_t chunk_rows() const;

  const UrlDownloadOperator& op_;
  QueryContext& query_;
  int partition_;
  std::function<void()> wake_;
  int64_t chunks_emitted_ = 0;  ///< numbers chunks for the rejected rows' input order
  bool flushed_ = false;
  std::deque<Batch> waiting_;  ///< rows fed and not yet dispatched (driver thread)
  /// Chunks not yet emitted, oldest first (driver thread adds and removes; completions fill
  /// them in under mu_). A deque: completions hold references to its elements.
  std::deque<Chunk> chunks_;

  mutable std::mutex mu_;
  int64_t outstanding_ = 0;  ///< fetches queued and not ended
  int64_t held_bytes_ = 0;   ///< bytes of files in chunks not yet emitted
  int64_t files_done_ = 0;   ///< files fetched so far, and their bytes: sizes the chunks
  int64_t file_bytes_ = 0;
};

}  // namespace ember
