// Encoding logical nodes, expressions, types and values with the runner's message framing.
#include "dist/pipeline_message.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <variant>

#include "exec/sources/arrow_source.h"
#include "exec/sources/file_scan_source.h"
#include "exec/sources/parquet_source.h"
#include "exec/sources/range_source.h"
#include "exec/sources/table_source.h"
#include "plan/logical_plan.h"
#include "udf/data_type_codec.h"
#include "udf/process/wire_message.h"
#include "udf/udf_spec_codec.h"
#include "udf/value_codec.h"

namespace ember::dist {

namespace {

using process::MessageReader;
using process::MessageWriter;

enum class SourceKind : uint8_t {
  Csv = 1,
  Jsonl = 2,
  Range = 3,
  Parquet = 4,
  Arrow = 5,
  Table = 6
};
enum class NodeKind : uint8_t {
  End = 0,
  Filter = 1,
  Project = 2,
  ActorPool = 3,
  Explode = 4,
  Join = 5
};
/// The breaker that ends the first pipeline, when other ranks run it too (their partitions
/// then come back to rank 0 as partial states: aggregates, a top-k's best rows).
enum class BreakerKind : uint8_t { None = 0, GroupBy = 1, Aggregate = 2, TopK = 3 };

/// The most a join's right side may hold (its files' bytes) for every rank to read it whole and
/// build its own hash table, rather than the query staying on rank 0 (docs/cluster.md): a
/// dimension table, not a second fact table.
constexpr int64_t kBroadcastJoinBytes = int64_t{64} << 20;

/// Thrown while encoding for a shape that stays on rank 0; its text says why.
struct NotSpreadable {
  std::string why;
};

void put_schema(MessageWriter& out, const Schema& schema) {
  out.put(static_cast<uint32_t>(schema.num_fields()));
  for (int i = 0; i < schema.num_fields(); ++i) {
    out.put_string(schema.field(i).name);
    put_data_type(out, schema.field(i).type);
  }
}

Schema get_schema(MessageReader& in) {
  std::vector<Field> fields;
  const auto n = in.get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) {
    std::string name(in.get_string());
    fields.push_back({std::move(name), get_data_type(in)});
  }
  return Schema(std::move(fields));
}

/// `aggregate`: e may be an aggregate (under aliases): one of a group-by's or agg()'s outputs.
void put_expr(MessageWriter& out, const ExprNode& e, bool aggregate = false) {
  if (e.kind == ExprKind::UdfCall) throw NotSpreadable{"a stateless UDF call"};
  if (e.kind == ExprKind::Aggregate && !aggregate)
    throw NotSpreadable{"an aggregate below a breaker"};
  out.put(static_cast<uint8_t>(e.kind));
  out.put_string(e.name);
  put_value(out, e.literal);
  out.put(static_cast<uint8_t>(e.binary));
  out.put(static_cast<uint8_t>(e.unary));
  out.put(static_cast<uint8_t>(e.agg));
  put_data_type(out, e.cast_to);
  out.put(e.index);
  out.put(static_cast<uint8_t>(e.function));
  out.put(static_cast<uint32_t>(e.params.size()));
  for (const Value& p : e.params) put_value(out, p);
  out.put(static_cast<uint32_t>(e.children.size()));
  for (const auto& c : e.children) put_expr(out, *c, aggregate && e.kind == ExprKind::Alias);
}

void put_exprs(MessageWriter& out, const std::vector<ExprPtr>& exprs, bool aggregates) {
  out.put(static_cast<uint32_t>(exprs.size()));
  for (const auto& e : exprs) put_expr(out, *e, aggregates);
}

std::vector<ExprPtr> get_exprs(MessageReader& in);

ExprPtr get_expr(MessageReader& in) {
  auto e = std::make_shared<ExprNode>();
  e->kind = static_cast<ExprKind>(in.get<uint8_t>());
  e->name = std::string(in.get_string());
  e->literal = get_value(in);
  e->binary = static_cast<BinaryOp>(in.get<uint8_t>());
  e->unary = static_cast<UnaryOp>(in.get<uint8_t>());
  e->agg = static_cast<AggFunc>(in.get<uint8_t>());
  e->cast_to = get_data_type(in);
  e->index = in.get<int64_t>();
  const auto function = in.get<uint8_t>();
  if (function > static_cast<uint8_t>(kLastFunctionId)) {
    throw Error("distributed runner: a pipeline message holds an unknown function");
  }
  e->function = static_cast<FunctionId>(function);
  const auto num_params = in.get<uint32_t>();
  for (uint32_t i = 0; i < num_params; ++i) e->params.push_back(get_value(in));
  const auto n = in.get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) e->children.push_back(get_expr(in));
  return e;
}

std::vector<ExprPtr> get_exprs(MessageReader& in) {
  std::vector<ExprPtr> exprs(in.get<uint32_t>());
  for (auto& e : exprs) e = get_expr(in);
  return exprs;
}

void put_strings(MessageWriter& out, const std::vector<std::string>& v) {
  out.put(static_cast<uint32_t>(v.size()));
  for (const auto& s : v) out.put_string(s);
}

std::vector<std::string> get_strings(MessageReader& in) {
  std::vector<std::string> v;
  const auto n = in.get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) v.emplace_back(in.get_string());
  return v;
}

/// Where a source's remote files are and how to sign in: every rank reads them itself.
void put_storage(MessageWriter& out, const StorageOptions& storage) {
  put_strings(out, {storage.endpoint_url, storage.region, storage.access_key_id,
                    storage.secret_access_key, storage.session_token});
  out.put(static_cast<int32_t>(storage.max_connections));
}

StorageOptions get_storage(MessageReader& in) {
  const std::vector<std::string> fields = get_strings(in);
  if (fields.size() != 5) throw Error("distributed runner: a malformed storage message");
  StorageOptions storage{fields[0], fields[1], fields[2], fields[3], fields[4]};
  storage.max_connections = in.get<int32_t>();
  return storage;
}

/// Writes a source as another rank makes it again: its kind, then what it was made from.
class SourceEncoder final : public SourceVisitor {
 public:
  explicit SourceEncoder(MessageWriter& out) : out_(out) {}

  void visit(const CsvSource& csv) override {
    out_.put(SourceKind::Csv);
    out_.put_string(csv.pattern());
    out_.put(csv.options().delimiter);
    out_.put(csv.options().infer_rows);
    out_.put(csv.options().split_bytes);
    put_schema(out_, csv.schema());  // the same columns, without inferring them again
    put_storage(out_, csv.options().storage);
    // The filter it applies while parsing, so that other ranks skip the same columns' work.
    out_.put(static_cast<uint8_t>(csv.filter_predicate() != nullptr));
    if (csv.filter_predicate()) put_expr(out_, *csv.filter_predicate());
  }
  void visit(const JsonlSource& jsonl) override {
    out_.put(SourceKind::Jsonl);
    out_.put_string(jsonl.pattern());
    out_.put(jsonl.options().infer_rows);
    out_.put(jsonl.options().split_bytes);
    put_storage(out_, jsonl.options().storage);
  }
  void visit(const ParquetSource& parquet) override {
    // The row groups statistics kept, as rank 0 numbered them: every rank reads the same parts.
    out_.put(SourceKind::Parquet);
    out_.put_string(parquet.pattern());
    put_storage(out_, parquet.storage());
    put_strings(out_, parquet.files());
    put_strings(out_, parquet.columns());
    out_.put(static_cast<uint32_t>(parquet.struct_fields().size()));
    for (const auto& [column, fields] : parquet.struct_fields()) {
      out_.put_string(column);
      put_strings(out_, std::vector<std::string>(fields.begin(), fields.end()));
    }
    out_.put(static_cast<uint32_t>(parquet.row_groups().size()));
    for (const ParquetScan::Part& p : parquet.row_groups()) {
      out_.put(static_cast<int32_t>(p.file));
      out_.put(static_cast<int32_t>(p.row_group));
    }
    out_.put(parquet.skipped_row_groups());
  }
  void visit(const ArrowSource& arrow) override {
    out_.put(SourceKind::Arrow);
    out_.put_string(arrow.pattern());
    put_storage(out_, arrow.options().storage);
  }
  void visit(const RangeSource& range) override {
    out_.put(SourceKind::Range);
    out_.put(range.rows());
    out_.put(static_cast<int32_t>(range.num_partitions()));
  }
  void visit(const TableSource& table) override {
    // Sent whole, value by value, once per rank: a table in memory is small next to files.
    out_.put(SourceKind::Table);
    out_.put_string(table.label());
    put_schema(out_, table.schema());
    out_.put(static_cast<uint32_t>(table.partitions().size()));
    for (const std::vector<Batch>& part : table.partitions()) {
      out_.put(static_cast<uint32_t>(part.size()));
      for (const Batch& b : part) {
        out_.put(b.num_rows());
        for (int c = 0; c < b.num_columns(); ++c)
          for (int64_t i = 0; i < b.num_rows(); ++i) put_value(out_, b.column(c).get(i));
      }
    }
  }
  void visit_intermediate(const Source& s) override {
    throw NotSpreadable{"its source (" + s.describe() + ") is no file or range another rank reads"};
  }

 private:
  MessageWriter& out_;
};

/// Roughly the bytes a source holds (its files' sizes, a table's buffers): what every rank reads
/// again when the source is a join's right side.
class SourceBytes final : public SourceVisitor {
 public:
  int64_t bytes = 0;
  void visit(const CsvSource& s) override { add_files(s); }
  void visit(const JsonlSource& s) override { add_files(s); }
  void visit(const ParquetSource& s) override { add_files(s); }
  void visit(const ArrowSource& s) override { add_files(s); }
  void visit(const RangeSource& s) override { bytes += 8 * s.rows(); }
  void visit(const TableSource& s) override {
    for (const auto& part : s.partitions())
      for (const Batch& b : part) bytes += b.byte_size();
  }
  void visit_intermediate(const Source&) override {}

 private:
  void add_files(const Source& s) {
    std::error_code error;
    for (const std::string& f : s.files()) {
      const auto size = std::filesystem::file_size(f, error);
      if (!error) bytes += static_cast<int64_t>(size);
    }
  }
};

std::shared_ptr<const Source> get_table(MessageReader& in) {
  std::string label(in.get_string());
  const Schema schema = get_schema(in);
  std::vector<std::vector<Batch>> parts(in.get<uint32_t>());
  for (std::vector<Batch>& part : parts) {
    part.resize(in.get<uint32_t>());
    for (Batch& b : part) {
      const auto rows = in.get<int64_t>();
      std::vector<Column> columns;
      for (const Field& f : schema.fields()) {
        ColumnBuilder column(f.type, rows);
        for (int64_t i = 0; i < rows; ++i) column.append_value(get_value(in));
        columns.push_back(column.finish());
      }
      b = columns.empty() ? Batch::empty_with_rows(rows) : Batch(schema, std::move(columns));
    }
  }
  return std::make_shared<TableSource>(schema, std::move(parts), std::move(label));
}

NodePtr get_source(MessageReader& in) {
  switch (in.get<SourceKind>()) {
    case SourceKind::Csv: {
      std::string pattern(in.get_string());
      CsvOptions options;
      options.delimiter = in.get<char>();
      options.infer_rows = in.get<int64_t>();
      options.split_bytes = in.get<int64_t>();
      options.schema = get_schema(in);
      options.storage = get_storage(in);
      auto csv = std::make_shared<CsvSource>(std::move(pattern), std::move(options));
      if (in.get<uint8_t>() != 0) {
        const ExprPtr predicate = get_expr(in);
        if (auto filtered = csv->with_filter(predicate)) return make_source(std::move(filtered));
      }
      return make_source(std::move(csv));
    }
    case SourceKind::Jsonl: {
      std::string pattern(in.get_string());
      JsonlOptions options;
      options.infer_rows = in.get<int64_t>();
      options.split_bytes = in.get<int64_t>();
      options.storage = get_storage(in);
      return make_source(std::make_shared<JsonlSource>(std::move(pattern), options));
    }
    case SourceKind::Range: {
      const auto n = in.get<int64_t>();
      return make_source(std::make_shared<RangeSource>(n, in.get<int32_t>()));
    }
    case SourceKind::Parquet: {
      std::string pattern(in.get_string());
      const StorageOptions storage = get_storage(in);
      const std::vector<std::string> files = get_strings(in);
      const std::vector<std::string> columns = get_strings(in);
      std::map<std::string, std::set<std::string>> struct_fields;
      for (auto n = in.get<uint32_t>(); n > 0; --n) {
        std::string column(in.get_string());
        const std::vector<std::string> fields = get_strings(in);
        struct_fields[column] = std::set<std::string>(fields.begin(), fields.end());
      }
      std::vector<ParquetScan::Part> parts(in.get<uint32_t>());
      for (ParquetScan::Part& p : parts) {
        p.file = in.get<int32_t>();
        p.row_group = in.get<int32_t>();
      }
      const auto skipped = in.get<int64_t>();
      return make_source(ParquetSource::narrowed(std::move(pattern), storage, files, columns,
                                                 struct_fields, std::move(parts), skipped));
    }
    case SourceKind::Arrow: {
      std::string pattern(in.get_string());
      ArrowOptions options;
      options.storage = get_storage(in);
      return make_source(std::make_shared<ArrowSource>(std::move(pattern), std::move(options)));
    }
    case SourceKind::Table:
      return make_source(get_table(in));
  }
  throw Error("distributed runner: a pipeline message holds an unknown source");
}

void put_pool(MessageWriter& out, const ActorPoolProjectNode& n) {
  const UdfSpec& spec = *n.udf;
  // Every setting: the pool here applies the deadline, the calls per actor and the retries
  // to its calls as rank 0's pool would.
  out.put_string(encode_udf_spec(spec));
  put_strings(out, n.arg_columns);
  put_strings(out, n.arg_names);
  out.put_string(n.output_column);
}

NodePtr get_pool(MessageReader& in, NodePtr input) {
  // The pool here holds proxies (they construct nothing), but a pool serves registered classes:
  // decoding finds the class in this rank's registry, or says to run the same binary everywhere.
  std::shared_ptr<UdfSpec> spec = decode_udf_spec(in.get_string());
  auto arg_columns = get_strings(in);
  auto arg_names = get_strings(in);
  std::string output(in.get_string());
  return make_actor_pool_project(std::move(input), std::move(spec), std::move(arg_columns),
                                 std::move(arg_names), std::move(output));
}

/// Writes a query's first pipeline, source first: walking down from the root, each kind of
/// node says whether it streams (it joins the pipeline when no breaker lies below it), breaks
/// (what lies above it is another pipeline's) or keeps the query on rank 0.
class FirstPipelineEncoder final : NodeVisitor {
 public:
  /// `broadcast`: `out` gets a join's right side, which every rank reads whole (no UDF, no
  /// breaker).
  explicit FirstPipelineEncoder(MessageWriter& out, bool broadcast = false)
      : out_(out), broadcast_(broadcast) {}
  /// Writes `root`'s first pipeline; its output schema is the last node's.
  void encode(const LogicalNode& root) {
    root.accept(*this);
    out_.put(NodeKind::End);
    put_schema(out_, last_->schema);
    out_.put_string(breaker_);
  }
  /// After encode(): whether the first breaker travelled (other ranks send partial states).
  bool partials() const { return !breaker_.empty(); }

 private:
  void visit(const SourceNode& n) override {
    SourceEncoder source(out_);
    n.source->accept(source);
    out_.put(static_cast<int32_t>(n.source->num_partitions()));
    SourceBytes size;
    n.source->accept(size);
    broadcast_bytes_ += size.bytes;
    last_ = &n;
  }
  void visit(const FilterNode& n) override {
    if (!streams(n)) return;
    out_.put(NodeKind::Filter);
    put_expr(out_, *n.predicate);
  }
  void visit(const ProjectNode& n) override {
    if (!streams(n)) return;
    out_.put(NodeKind::Project);
    out_.put(static_cast<uint32_t>(n.exprs.size()));
    for (const auto& e : n.exprs) put_expr(out_, *e);
  }
  void visit(const ActorPoolProjectNode& n) override {
    if (broadcast_) throw NotSpreadable{"a UDF on the right side of a join"};
    if (!streams(n)) return;
    out_.put(NodeKind::ActorPool);
    put_pool(out_, n);
  }
  void visit(const ExplodeNode& n) override {
    if (!streams(n)) return;
    out_.put(NodeKind::Explode);
    out_.put_string(n.column);
  }
  void visit(const LimitNode& n) override { breaks(n); }
  void visit(const RepartitionNode& n) override { breaks(n); }
  void visit(const AggregateNode& n) override {
    if (!breaks(n)) return;
    breaker_ = partial([&](MessageWriter& out) {
      out.put(BreakerKind::Aggregate);
      put_exprs(out, n.exprs, true);
    });
  }
  void visit(const GroupByNode& n) override {
    if (!breaks(n)) return;
    breaker_ = partial([&](MessageWriter& out) {
      out.put(BreakerKind::GroupBy);
      put_exprs(out, n.keys, false);
      put_exprs(out, n.aggregates, true);
    });
  }
  void visit(const SortNode& n) override { breaks(n); }
  void visit(const TopKNode& n) override {
    // A top-k's best rows travel value by value: past this many, its rows travel as rows.
    constexpr int64_t kMostPartialTopK = 100'000;
    if (!breaks(n) || n.k > kMostPartialTopK) return;
    breaker_ = partial([&](MessageWriter& out) {
      out.put(BreakerKind::TopK);
      out.put(n.k);
      out.put(static_cast<uint32_t>(n.keys.size()));
      for (const SortSpec& key : n.keys) {
        put_expr(out, *key.expr);
        out.put(static_cast<uint8_t>(key.descending));
        out.put(static_cast<uint8_t>(key.nulls_first));
      }
    });
  }
  /// A join streams when every rank can build its right side itself: each reads the right
  /// side whole (a small table, no UDF, no breaker) and probes it with its own partitions of
  /// the left. A right or full join's unmatched right rows are known only once every rank's
  /// probe has ended: it stays on rank 0.
  void visit(const JoinNode& n) override {
    if (n.type == JoinType::Right || n.type == JoinType::Full)
      throw NotSpreadable{std::string("a ") + join_type_name(n.type) +
                          " join keeps the right side's unmatched rows on rank 0"};
    if (!streams(n)) return;
    MessageWriter right;
    FirstPipelineEncoder side(right, true);
    side.encode(n.right());
    broadcast_bytes_ += side.broadcast_bytes_;
    if (side.broadcast_bytes_ > kBroadcastJoinBytes)
      throw NotSpreadable{"the right side of " + n.describe() + " (" +
                          std::to_string(side.broadcast_bytes_ >> 20) +
                          " MiB) is larger than what every rank reads again (" +
                          std::to_string(kBroadcastJoinBytes >> 20) + " MiB)"};
    out_.put(NodeKind::Join);
    put_strings(out_, n.on);
    out_.put(static_cast<uint8_t>(n.type));
    out_.put(static_cast<uint32_t>(n.right_columns.size()));
    for (const auto& [output, input] : n.right_columns) {
      out_.put_string(input);
      out_.put_string(output);
    }
    out_.put_string(right.bytes());
  }

  /// Walks below `n`; true when `n` belongs to the first pipeline (no breaker below it).
  bool streams(const LogicalNode& n) {
    n.child().accept(*this);
    if (broken_) return false;
    last_ = &n;
    return true;
  }
  /// Walks below `n`; true when `n` is the first breaker (it ends the first pipeline).
  bool breaks(const LogicalNode& n) {
    if (broadcast_) throw NotSpreadable{"a breaker on the right side of a join"};
    n.child().accept(*this);
    const bool first = !broken_;
    broken_ = true;
    return first;
  }
  /// The first breaker as `write` encodes it, when other ranks can run their partitions into it
  /// themselves; empty when it holds what they cannot run (a stateless UDF): their rows then
  /// come to rank 0's.
  template <class Write>
  static std::string partial(Write write) {
    // The old path, for benchmarks (bench/dist/run.sh): every row to rank 0's breaker.
    if (const char* rows = std::getenv("EMBER_DIST_GATHER_ROWS"); rows && *rows == '1') return {};
    MessageWriter out;
    try {
      write(out);
    } catch (const NotSpreadable&) {
      return {};
    }
    return out.bytes();
  }

  MessageWriter& out_;
  const LogicalNode* last_ = nullptr;  ///< the first pipeline's last node so far
  bool broken_ = false;                ///< a breaker lies below the node being visited
  std::string breaker_;  ///< the first breaker, when other ranks run it (BreakerKind first)
  const bool broadcast_;
  int64_t broadcast_bytes_ = 0;  ///< what the sources read (a join's right side: every rank)
};

/// `chain` under the breaker `bytes` describe (none: `chain`).
NodePtr with_breaker(NodePtr chain, std::string_view bytes) {
  if (bytes.empty()) return chain;
  auto in = MessageReader::unframed(bytes);
  switch (in.get<BreakerKind>()) {
    case BreakerKind::GroupBy: {
      std::vector<ExprPtr> keys = get_exprs(in);
      return make_group_by(std::move(chain), std::move(keys), get_exprs(in));
    }
    case BreakerKind::Aggregate:
      return make_aggregate(std::move(chain), get_exprs(in));
    case BreakerKind::TopK: {
      const auto k = in.get<int64_t>();
      std::vector<SortSpec> keys(in.get<uint32_t>());
      for (SortSpec& key : keys) {
        key.expr = get_expr(in);
        key.descending = in.get<uint8_t>() != 0;
        key.nulls_first = in.get<uint8_t>() != 0;
      }
      return make_top_k(std::move(chain), k, std::move(keys));
    }
    case BreakerKind::None:
      break;
  }
  throw Error("distributed runner: a pipeline message holds an unknown breaker");
}

NodePtr decode_chain(MessageReader& in);

/// A join whose right side this rank reads whole, probed by `left`.
NodePtr get_join(MessageReader& in, NodePtr left) {
  std::vector<std::string> on = get_strings(in);
  const auto type = static_cast<JoinType>(in.get<uint8_t>());
  std::map<std::string, std::string> names;
  for (auto n = in.get<uint32_t>(); n > 0; --n) {
    std::string input(in.get_string());
    names[input] = std::string(in.get_string());
  }
  auto side = MessageReader::unframed(in.get_string());
  NodePtr right = decode_chain(side);
  return make_join(std::move(left), std::move(right), std::move(on), type, names);
}

/// A chain FirstPipelineEncoder wrote: its source, its nodes, its breaker.
NodePtr decode_chain(MessageReader& in) {
  NodePtr node = get_source(in);
  const auto partitions = in.get<int32_t>();
  const Source& source = *static_cast<const SourceNode&>(*node).source;
  if (source.num_partitions() != partitions)
    throw Error("distributed runner: this rank reads " + source.describe() + " as " +
                std::to_string(source.num_partitions()) + " partitions, rank 0 as " +
                std::to_string(partitions) + "; every rank must see the same files");
  for (;;) {
    const auto kind = in.get<NodeKind>();
    if (kind == NodeKind::End) break;
    switch (kind) {
      case NodeKind::Filter:
        node = make_filter(node, get_expr(in));
        break;
      case NodeKind::Project: {
        std::vector<ExprPtr> exprs;
        const auto k = in.get<uint32_t>();
        for (uint32_t j = 0; j < k; ++j) exprs.push_back(get_expr(in));
        node = make_project(node, std::move(exprs));
        break;
      }
      case NodeKind::ActorPool:
        node = get_pool(in, node);
        break;
      case NodeKind::Explode:
        node = make_explode(node, std::string(in.get_string()));
        break;
      case NodeKind::Join:
        node = get_join(in, node);
        break;
      default:
        throw Error("distributed runner: a pipeline message holds an unknown node");
    }
  }
  const Schema expected = get_schema(in);
  if (!(node->schema == expected))
    throw Error("distributed runner: this rank reads the source with other columns (" +
                node->schema.to_string() + ") than rank 0 (" + expected.to_string() +
                "); every rank must see the same files");
  return with_breaker(std::move(node), in.get_string());
}

}  // namespace

std::string encode_first_pipeline(const LogicalNode& root, std::string* why, bool* partials) {
  try {
    MessageWriter out;
    out.begin(process::Op::Init);
    FirstPipelineEncoder encoder(out);
    encoder.encode(root);
    if (partials) *partials = encoder.partials();
    return out.bytes();
  } catch (const NotSpreadable& e) {
    *why = e.why;
    return {};
  }
}

NodePtr decode_first_pipeline(std::string_view bytes) {
  MessageReader in(bytes);
  return decode_chain(in);
}

}  // namespace ember::dist
