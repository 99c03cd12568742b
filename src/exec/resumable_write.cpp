// The identity, journal and explain() text of a resumable write; see resumable_write.h.
#include "exec/resumable_write.h"

#include <sys/stat.h>

#include <cstdio>
#include <sstream>

#include "ember/error.h"
#include "exec/saved_breaker_result.h"
#include "exec/sinks/join_build_sink.h"
#include "exec/sources/grace_join_source.h"

namespace ember {
namespace {

std::string hex64(std::string_view text) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a: stable across runs, machines and builds
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string format_of(const QueryOutput& out) {
  switch (out.kind) {
    case QueryOutput::Kind::Csv:
      return "csv";
    case QueryOutput::Kind::Jsonl:
      return "jsonl";
    case QueryOutput::Kind::Arrow:
      return std::string(out.arrow.stream ? "arrow stream" : "arrow") + ", compression " +
             std::to_string(static_cast<int>(out.arrow.compression));
    case QueryOutput::Kind::Parquet:
      return "parquet, compression " + std::to_string(static_cast<int>(out.parquet.compression)) +
             ", row groups of " + std::to_string(out.parquet.row_group_rows) + " rows";
    case QueryOutput::Kind::Collect:
      break;
  }
  return "collect";
}

/// "k1=<type>:<value>, ...": the type keeps 1 and "1" apart.
std::string describe_init_args(const InitArgs& args) {
  std::string text;
  for (const auto& [key, value] : args.items())
    text += (text.empty() ? "" : ", ") + key + "=" + std::to_string(value.index()) + ":" +
            to_string(value);
  return "{" + text + "}";
}

std::string describe_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "missing";
  return std::to_string(st.st_size) + " bytes, modified at " + std::to_string(st.st_mtim.tv_sec) +
         "." + std::to_string(st.st_mtim.tv_nsec) + " s";
}

/// The spills of the joins `write` probes (its tails: each join's spilled key ranges), or
/// nullopt when a tail is something else.
std::optional<std::vector<std::shared_ptr<JoinSpill>>> probed_join_spills(const Pipeline& write) {
  std::vector<std::shared_ptr<JoinSpill>> spills;
  for (const PipelineTail& t : write.tails) {
    const auto* grace = dynamic_cast<const GraceJoinSource*>(t.source.get());
    if (!grace) return std::nullopt;
    spills.push_back(grace->spill());
  }
  return spills;
}

/// The pipeline that writes streams from a scan, and every pipeline before it builds a join's
/// hash table that it probes: an inner or left join (a right or full join ends the probe
/// pipeline in a breaker).
bool writes_from_a_scan(const PhysicalPlan& physical) {
  const Pipeline& last = physical.pipelines.back();
  if (!last.source || last.breaker || !probed_join_spills(last)) return false;
  for (size_t k = 0; k + 1 < physical.pipelines.size(); ++k)
    if (!dynamic_cast<const JoinBuildSink*>(physical.pipelines[k].breaker.get())) return false;
  return true;
}

}  // namespace

void check_resumable_options(const RunOptions& options, const QueryOutput& out) {
  if (options.checkpoint_rows < 0)
    throw InvalidArgument("RunOptions::checkpoint_rows must be >= 0, got " +
                          std::to_string(options.checkpoint_rows));
  if (!options.resumable) return;
  if (out.kind == QueryOutput::Kind::Collect)
    throw InvalidArgument(
        "RunOptions::resumable applies to write_parquet, write_arrow, write_csv and "
        "write_jsonl, not to a query that collects its rows");
}

bool resumes_pieces(const PhysicalPlan& physical) {
  return saves_breaker_result(physical) || writes_from_a_scan(physical);
}

JournalIdentity query_identity(const LogicalNode& optimized, const PhysicalPlan& physical,
                               const QueryOutput& out, const RunOptions& options) {
  JournalIdentity id;
  id.fields.emplace_back("optimized plan", hex64(to_string(optimized)));
  id.fields.emplace_back("output format", format_of(out));
  id.fields.emplace_back("checkpoint_rows", std::to_string(options.checkpoint_rows));
  const Pipeline& last = physical.pipelines.back();
  if (last.source)
    id.fields.emplace_back("partitions", std::to_string(last.source->num_partitions()));
  for (const auto& spec : physical.pools)
    id.fields.emplace_back("UDF " + spec->name, "class " + spec->class_name + ", init args " +
                                                    describe_init_args(spec->init_args));
  for (const std::string& file : source_files(optimized))
    id.fields.emplace_back("input file " + file, describe_file(file));
  return id;
}

ResumableWrite open_resumable_write(const StagedOutput& staged, const LogicalNode& optimized,
                                    const PhysicalPlan& physical, const QueryOutput& out,
                                    const RunOptions& options) {
  const bool keep = resumes_pieces(physical);
  ResumableWrite write{OutputJournal::open(staged.target(), staged.dir(), staged.existed(),
                                           query_identity(optimized, physical, out, options),
                                           options.discard_unfinished, keep),
                       options.checkpoint_rows};
  if (keep && writes_from_a_scan(physical)) {
    const Pipeline& last = physical.pipelines.back();
    write.kept_below = last.source->num_partitions();
    write.spills = *probed_join_spills(last);
  }
  for (const auto& [partition, part] : write.journal.recovered()) {
    if (partition >= write.kept_below) continue;  // never journaled now; not kept
    write.resumed_partitions += part.finished ? 1 : 0;
    write.resumed_rows += part.rows();
  }
  return write;
}

std::string explain_resumable(const PhysicalPlan& physical, const RunOptions& options) {
  std::ostringstream out;
  const std::string checkpoints = options.checkpoint_rows > 0
                                      ? " and, inside unfinished ones, every checkpoint (each " +
                                            std::to_string(options.checkpoint_rows) + " input rows)"
                                      : "";
  const size_t n = physical.pipelines.size();
  if (saves_breaker_result(physical)) {
    out << "  " << (n == 2 ? "pipeline 1" : "pipelines 1-" + std::to_string(n - 1))
        << " (up to the breaker): not resumable; a kill before the breaker's result is saved "
           "computes everything again\n"
        << "  the breaker's result (the input of pipeline " << n
        << ") is saved in the staging directory once produced: a rerun after that loads it "
           "and runs nothing upstream (no scan, no UDF before the breaker)\n"
        << "  pipeline " << n << " (the write): a rerun keeps every finished partition"
        << checkpoints << "\n";
  } else if (n == 1 && resumes_pieces(physical)) {
    out << "  a rerun after a kill keeps every finished partition" << checkpoints << "\n";
  } else if (resumes_pieces(physical)) {
    out << "  " << (n == 2 ? "pipeline 1" : "pipelines 1-" + std::to_string(n - 1))
        << " (the joins' right sides): run again by every rerun, to build the hash tables\n"
        << "  pipeline " << n << " (the probe side and the write): a rerun keeps every "
        << "finished partition" << checkpoints
        << "; a run whose join spills its right side (past the memory budget) keeps nothing "
           "of its own for a rerun\n";
  } else {
    out << "  not resumable: the output comes after a breaker (pipeline " << n << ")"
        << " and reads state that earlier pipelines build (a join's hash table)"
        << "; a rerun computes everything again (the journal still refuses another query's "
           "staging)\n";
  }
  for (const auto& spec : physical.pools)
    out << "  UDF " << spec->name
        << " is assumed deterministic: a resumed run recomputes only the rows not kept\n";
  return out.str();
}

}  // namespace ember
