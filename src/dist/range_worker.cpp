// A worker rank's key range: splitters, the cut of its share, the exchange, the write.
#include "dist/range_worker.h"

#include <optional>
#include <vector>

#include "exec/pipeline_breaker.h"
#include "exec/range_write.h"
#include "exec/relational/column_codec.h"
#include "exec/relational/key_ranges.h"

namespace ember::dist {

namespace {

std::string range_bytes(const Batch& rows) {
  std::string bytes;
  append_columns(rows.columns(), bytes);
  return bytes;
}

/// A piece's rows, which must be of `schema`.
Batch decode(const ShareInbox::Piece& piece, const Schema& schema) {
  std::vector<DataType> types;
  for (const Field& f : schema.fields()) types.push_back(f.type);
  std::string_view in = piece.bytes;
  Batch rows(schema, read_columns(in, types));
  if (rows.num_rows() != piece.rows)
    throw Error("rank " + std::to_string(piece.source) + ": a key range of " +
                std::to_string(rows.num_rows()) + " rows said " + std::to_string(piece.rows));
  return rows;
}

Schema leading(const Schema& schema, int keys) {
  std::vector<Field> fields(schema.fields().begin(), schema.fields().begin() + keys);
  return Schema(std::move(fields));
}

void send_range(Run& run, const RangeTarget& target, int to, const Batch& rows) {
  process::MessageWriter out;
  out.begin(process::Op::Range);
  out.put(to == 0 ? target.done_key : target.query);
  out.put(static_cast<int32_t>(run.transport.rank()));
  out.put(rows.num_rows());
  out.put_string(range_bytes(rows));
  run.transport.send(to, to == 0 ? kTagData : kTagQuery, MessageBuffer(out.bytes()));
}

}  // namespace

RangeWritten write_key_range(Run& run, const RangeTarget& target, const PhysicalPlan& physical,
                             size_t at, std::shared_ptr<const Source> groups, int threads) {
  const PipelineBreaker& breaker = *physical.pipelines.at(at).breaker;
  const int keys = breaker.range_keys();
  const std::vector<KeyOrder> order(static_cast<size_t>(keys), KeyOrder{});
  const int ranks = run.transport.ranks();
  const int self = run.transport.rank();
  const Batch share = read_whole(*groups);
  RangeWritten written;

  // Rank 0's splitters, and meanwhile what faster ranks sent of this rank's range.
  std::optional<Batch> splitters;
  std::vector<Batch> pieces;
  const auto next = [&] {
    std::optional<ShareInbox::Piece> piece = run.ranges.next();
    if (!piece) throw Cancelled("rank 0 ended the query");
    if (piece->partition >= 0) {
      pieces.push_back(decode(*piece, share.schema()));
      written.rows_in += pieces.back().num_rows();
    } else if (splitters || piece->source != 0) {
      throw Error("rank " + std::to_string(piece->source) + ": splitters not asked for");
    } else {
      splitters = decode(*piece, leading(share.schema(), keys));
    }
  };
  while (!splitters) next();
  std::vector<Batch> cut = split_at_splitters(share, keys, order, *splitters, ranks);
  for (int r = 0; r < ranks; ++r) {
    if (r == self) continue;
    send_range(run, target, r, cut[static_cast<size_t>(r)]);
    written.rows_out += cut[static_cast<size_t>(r)].num_rows();
  }
  while (static_cast<int>(pieces.size()) < ranks - 1) next();
  pieces.insert(pieces.begin(), std::move(cut[static_cast<size_t>(self)]));

  std::vector<std::unique_ptr<ActorPool>> no_pools;
  QueryContext context(no_pools);
  // While the write runs, rank 0's Stop fails its context (Run::cancel).
  struct Attached {
    Run& run;
    ~Attached() {
      std::lock_guard lock(run.mu);
      run.context = nullptr;
    }
  };
  {
    std::lock_guard lock(run.mu);
    if (run.cancelled) throw Cancelled("rank 0 ended the query");
    run.context = &context;
  }
  const Attached attached{run};
  // An object store's part goes up from a local directory of this rank's (its destructor aborts
  // an upload that was not handed to rank 0).
  std::optional<StagedOutput> staged;
  if (!target.object_store.empty())
    staged.emplace(StagedOutput::open(target.object_store, target.storage));
  FileSink part(staged ? staged->dir() : target.dir, physical.schema, target.format,
                target.options);
  std::unique_ptr<GlobalSinkState> state = part.global_state(ranks);
  write_range(context, physical.pipelines.back(),
              merge_key_ordered(share.schema(), keys, order, std::move(pieces), "GroupBy"), self,
              ranks, part, *state, threads);
  if (std::exception_ptr e = context.error()) std::rethrow_exception(e);
  if (staged) {
    process::MessageWriter out;
    out.begin(process::Op::Stop);
    out.put(target.done_key);
    put_uploaded(out, staged->uploads()->take(part.part_name(self)));
    run.transport.send(0, kTagData, MessageBuffer(out.bytes()));
  }
  written.rows = context.rows_out.load();
  written.bytes = part.bytes_written(*state);
  return written;
}

}  // namespace ember::dist
