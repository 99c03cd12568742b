// Rank 0 taking what the worker ranks send for a spread query, as it arrives: the rows of
// their partitions (into the sink, in each partition's order), rejected rows, partial states,
// committed pieces, progress, requests for more partitions, and each rank's end.
#include <atomic>

#include "core/cancelled.h"
#include "dist/batch_message.h"
#include "dist/cluster_run_state.h"
#include "dist/piece_message.h"
#include "dist/rank_protocol.h"
#include "dist/storage_message.h"

namespace ember::dist {

void ClusterRun::take(const Incoming& m) {
  process::MessageReader in(m.bytes());
  const uint64_t key = in.get<uint64_t>();
  const auto op = in.header().op;
  if (auto done = done_keys_.find(key); done != done_keys_.end()) {
    if (op == process::Op::Progress) {
      Reported now;
      now.partitions = in.get<int64_t>();
      now.rows = in.get<int64_t>();
      now.rows_out = in.get<int64_t>();
      count(done->second, now);
    } else if (op == process::Op::Want) {
      {
        std::lock_guard lock(mu_);
        deferred_[static_cast<size_t>(done->second)] = in.get<uint32_t>();
      }
      answer(done->second);
    } else if (op == process::Op::Ready) {
      rank_ended(done->second, in);
    } else if (op == process::Op::Range) {
      try {
        take_range(done->second, in);
      } catch (...) {
        fail(std::current_exception());
      }
    } else if (op == process::Op::Stop) {
      // A write by key range to an object store: the rank's part is up, not completed; rank 0
      // completes it at commit (or aborts it), whether or not the query succeeds.
      if (!part_uploaded_ || !ranges_) {
        fail(std::make_exception_ptr(
            Error("rank " + std::to_string(done->second) + ": an upload nothing asked for")));
        return;
      }
      part_uploaded_(get_uploaded(in));
    } else if (op == process::Op::Result) {
      // A batch of the rank's finalized share of an exchanged breaker's keys.
      const auto rows = in.get<int64_t>();
      if (!m.data)
        throw Error("rank " + std::to_string(done->second) + ": a share without columns");
      if (!query_.cancelled())
        shares_[static_cast<size_t>(done->second)].push_back(
            to_batch(unpack_columns(in, m.data), rows));
    } else if (op == process::Op::Failed) {
      // The rank was lost (it stopped answering): it will never send its end, so it has
      // ended for this query, and the query fails with why.
      --ranks_running_;
      try {
        raise_failure(in, done->second);
      } catch (...) {
        fail(std::current_exception());
      }
    }
    return;
  }
  auto it = arriving_.find(key);
  if (it == arriving_.end()) return;  // after the partition's end: not expected
  Arriving& a = it->second;
  // Its Stop or its Failed: one per partition.
  const bool end = op != process::Op::Result && op != process::Op::Rejected &&
                   op != process::Op::Partial && op != process::Op::Piece;
  try {
    if (op == process::Op::Result) return take_rows(a, in, m);
    if (op == process::Op::Partial) {
      // The partition aggregated where it ran: its states, merged at its end as its rows were.
      const std::string_view bytes = in.get_string();
      if (exchange_) shares_in_ += in.get<int64_t>();  // this rank's share of it
      if (accepting(a)) sink_->adopt_partial(*state_, local(a), bytes);
      return;
    }
    if (op == process::Op::Rejected) return take_rejected(a, in, m);
    if (op == process::Op::Piece) {
      // Committed (fsynced, renamed into place) before it was sent: journaled now.
      JournalPiece piece = get_piece(in);
      piece.partition = a.partition;
      if (piece_written_) piece_written_(piece);
      return;
    }
    if (op == process::Op::Stop) {
      // The rank committed the partition's part file before it sent its end: durable now.
      const int64_t rows = files_ ? in.get<int64_t>() : 0;
      // A part in an object store is up, not completed: rank 0 completes it at commit (or
      // aborts it), whether or not the query still accepts rows.
      if (files_ && in.get<uint8_t>() != 0) {
        UploadedParts up = get_uploaded(in);
        if (!part_uploaded_) throw Error("internal: an upload from a rank of a local write");
        part_uploaded_(std::move(up));
      }
      // With checkpoints its last piece came as a Piece, journaled already.
      if (files_ && part_written_ && checkpoint_rows_ == 0) part_written_(a.partition, rows);
      if (accepting(a)) sink_->combine(*state_, local(a));
      a.local.reset();
      a.ended = true;
    } else {
      a.ended = true;
      raise_failure(in, a.rank);
    }
  } catch (const Cancelled&) {
    // The rank ended the partition because the query ended (failed or had enough).
  } catch (...) {
    fail(std::current_exception());
  }
  if (end) partition_ended(a.rank);
}

void ClusterRun::take_rejected(Arriving& a, process::MessageReader& in, const Incoming& m) {
  const auto step = in.get<int32_t>();  // a pool, or -1 - a url_download's number
  const auto chunk = in.get<int64_t>();
  const auto rows = in.get<int64_t>();
  if (query_.cancelled()) return;
  if (!m.data) throw Error("rank " + std::to_string(a.rank) + ": rejected rows without columns");
  const bool pool = step >= 0 && static_cast<size_t>(step) < query_.pools().size();
  const int64_t download = -1 - static_cast<int64_t>(step);
  if (!pool && (download < 0 || static_cast<size_t>(download) >= query_.downloads()))
    throw Error("rank " + std::to_string(a.rank) + ": rejected rows of an unknown step");
  RejectedRows& into =
      pool ? query_.rejected(step) : query_.download_rejected(static_cast<int>(download));
  // Counted against max_failed_rows with every rank's: past it, the query fails here.
  into.adopt(a.partition, chunk, to_batch(unpack_columns(in, m.data), rows));
}

void ClusterRun::take_rows(Arriving& a, process::MessageReader& in, const Incoming& m) {
  // Taken, whether kept or dropped: the rank may send another in its place.
  process::MessageWriter taken;
  taken.begin(process::Op::Taken);
  taken.put(id_);
  taken.put(int64_t{1});
  transport_.send(a.rank, kTagQuery, taken.bytes());
  const auto rows = in.get<int64_t>();
  if (!accepting(a)) return;
  if (!m.data) throw Error("rank " + std::to_string(a.rank) + ": a batch without its columns");
  const Batch batch = to_batch(unpack_columns(in, m.data), rows);
  query_.rows_out.fetch_add(rows, std::memory_order_relaxed);
  if (partials_)
    sink_->sink_after_partial(*state_, local(a), batch);
  else
    sink_->sink(*state_, local(a), batch);
  if (sink_->full(*a.local)) {  // this partition alone met the limit: it is complete
    sink_->combine(*state_, *a.local);
    a.local.reset();
    a.ended = true;
  }
}

bool ClusterRun::accepting(const Arriving& a) {
  if (sink_ == nullptr || a.ended) return false;
  if (query_.cancelled()) return false;
  if (!sink_->satisfied(*state_)) return true;
  cancel();  // a limit was met: the other ranks stop early
  return false;
}

void ClusterRun::count(int rank, const Reported& now) {
  // A rank's counters only grow (a rank that failed reports zeros at its end).
  Reported& last = reported_[static_cast<size_t>(rank)];
  const auto grow = [](std::atomic<int64_t>* total, int64_t& from, int64_t to) {
    if (to <= from) return;
    if (total) total->fetch_add(to - from, std::memory_order_relaxed);
    from = to;
  };
  grow(&query_.partitions_done, last.partitions, now.partitions);
  grow(&query_.rows_read, last.rows, now.rows);
  // Rows that come back are counted as they are taken; a rank that writes its own files
  // counts the rows it wrote.
  grow(files_ ? &query_.rows_out : nullptr, last.rows_out, now.rows_out);
}

void ClusterRun::rank_ended(int rank, process::MessageReader& in) {
  --ranks_running_;
  Reported final;
  final.partitions = in.get<int64_t>();
  final.rows = in.get<int64_t>();
  final.rows_out = in.get<int64_t>();
  count(rank, final);
  RankStats& stats = stats_[static_cast<size_t>(rank)];
  stats.partitions = reported_[static_cast<size_t>(rank)].partitions;
  stats.rows = reported_[static_cast<size_t>(rank)].rows;
  stats.peak_results_in_flight = in.get<int64_t>();
  stats.bytes_read = in.get<int64_t>();
  stats.bytes_written = in.get<int64_t>();
  stats.rows_shuffled_out = in.get<int64_t>();
  stats.rows_shuffled_in = in.get<int64_t>();
  stats.udf_batches_elsewhere = in.get<int64_t>();
  // A write by key range: the rows the rank wrote of its range (its own partitions' rows went
  // into the breaker, not out).
  const auto range_rows = in.get<int64_t>();
  if (ranges_) query_.rows_out.fetch_add(range_rows, std::memory_order_relaxed);
  const auto pools = in.get<uint32_t>();
  // The rank numbers the chain's pools from 0: the query's from first_pool_ on.
  const size_t first = static_cast<size_t>(first_pool_);
  if (udfs_.size() < first + pools) udfs_.resize(first + pools);
  for (uint32_t i = 0; i < pools; ++i) {
    UdfStats& u = udfs_[first + i];
    u.batches += in.get<int64_t>();
    u.rows += in.get<int64_t>();
    u.retries += in.get<int64_t>();
    u.timeouts += in.get<int64_t>();
    const double busy = in.get<double>();
    u.busy_seconds += busy;
    stats.busy_seconds += busy;
    // Constructions only this rank saw (a crashed process actor's restart) count in the pool.
    const auto actors = in.get<uint32_t>();
    for (uint32_t a = 0; a < actors; ++a) {
      const auto key = in.get<uint64_t>();
      note_hosted_inits(key, in.get<int64_t>());
    }
  }
}

}  // namespace ember::dist
