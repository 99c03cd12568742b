// A worker rank's key range: splitters, the cut of its runs, the exchange, the write.
#include "dist/range_worker.h"

#include <optional>
#include <vector>

#include "exec/range_write.h"
#include "exec/relational/column_codec.h"
#include "exec/relational/key_ranges.h"

namespace ember::dist {

std::string encode_runs(const std::vector<TaggedRun>& runs) {
  process::MessageWriter out;  // unframed: the runs travel inside a message's string
  out.put(static_cast<uint32_t>(runs.size()));
  for (const TaggedRun& run : runs) {
    std::string columns;
    append_columns(run.rows.columns(), columns);
    out.put(run.tag);
    out.put(run.rows.num_rows());
    out.put_string(columns);
  }
  return out.bytes();
}

std::vector<TaggedRun> decode_runs(std::string_view bytes, const Schema& schema) {
  auto in = process::MessageReader::unframed(bytes);
  std::vector<DataType> types;
  for (const Field& f : schema.fields()) types.push_back(f.type);
  std::vector<TaggedRun> runs(in.get<uint32_t>());
  for (TaggedRun& run : runs) {
    run.tag = in.get<int64_t>();
    const auto rows = in.get<int64_t>();
    std::string_view columns = in.get_string();
    run.rows = Batch(schema, read_columns(columns, types));
    if (run.rows.num_rows() != rows)
      throw Error("a key range's run of " + std::to_string(run.rows.num_rows()) + " rows said " +
                  std::to_string(rows));
  }
  return runs;
}

std::string range_message(process::Op op, uint64_t key, int32_t from,
                          const std::vector<TaggedRun>& runs) {
  process::MessageWriter out;
  out.begin(op);
  out.put(key);
  out.put(from);
  out.put(rows_of(runs));
  out.put_string(encode_runs(runs));
  return out.bytes();
}

int64_t rows_of(const std::vector<TaggedRun>& runs) {
  int64_t rows = 0;
  for (const TaggedRun& run : runs) rows += run.rows.num_rows();
  return rows;
}

namespace {

void send_range(Run& run, const RangeTarget& target, int to, const std::vector<TaggedRun>& runs) {
  run.transport.send(
      to, to == 0 ? kTagData : kTagQuery,
      MessageBuffer(range_message(process::Op::Range, to == 0 ? target.done_key : target.query,
                                  static_cast<int32_t>(run.transport.rank()), runs)));
}

}  // namespace

RangeWritten write_key_range(Run& run, const RangeTarget& target, const PhysicalPlan& physical,
                             size_t at, std::vector<TaggedRun> runs, int threads) {
  const PipelineBreaker& breaker = *physical.pipelines.at(at).breaker;
  const RangeKeys keys = *breaker.range_keys();
  const Schema& schema = physical.pipelines.at(at + 1).input;
  const int ranks = run.transport.ranks();
  const int self = run.transport.rank();
  RangeWritten written;

  // Rank 0's splitters, and meanwhile what faster ranks sent of this rank's range.
  std::optional<Batch> splitters;
  std::vector<TaggedRun> mine;
  int pieces = 0;
  const auto next = [&] {
    std::optional<ShareInbox::Piece> piece = run.ranges.next();
    if (!piece) throw Cancelled("rank 0 ended the query");
    if (piece->partition >= 0) {
      std::vector<TaggedRun> got = decode_runs(piece->bytes(), schema);
      written.rows_in += rows_of(got);
      for (TaggedRun& r : got) mine.push_back(std::move(r));
      ++pieces;
    } else if (splitters || piece->source != 0) {
      throw Error("rank " + std::to_string(piece->source) + ": splitters not asked for");
    } else {
      std::vector<TaggedRun> cut = decode_runs(piece->bytes(), key_schema(schema, keys));
      if (cut.size() != 1)
        throw Error("rank 0: splitters in " + std::to_string(cut.size()) + " runs");
      splitters = std::move(cut[0].rows);
    }
  };
  while (!splitters) next();
  std::vector<std::vector<TaggedRun>> cut(static_cast<size_t>(ranks));
  for (const TaggedRun& r : runs) {
    std::vector<Batch> slices = split_at_splitters(r.rows, keys, *splitters, ranks);
    for (int q = 0; q < ranks; ++q)
      cut[static_cast<size_t>(q)].push_back({r.tag, std::move(slices[static_cast<size_t>(q)])});
  }
  runs.clear();
  for (int q = 0; q < ranks; ++q) {
    if (q == self) continue;
    send_range(run, target, q, cut[static_cast<size_t>(q)]);
    written.rows_out += rows_of(cut[static_cast<size_t>(q)]);
  }
  while (pieces < ranks - 1) next();
  for (TaggedRun& r : cut[static_cast<size_t>(self)]) mine.push_back(std::move(r));

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
              merge_key_ordered(schema, keys, std::move(mine), "KeyRange"), self, ranks, part,
              *state, threads);
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
