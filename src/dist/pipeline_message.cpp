// A query's first pipeline as a message: the nodes above its source and the breaker that ends
// it, walked from the root; the source itself and the expressions are written by
// source_message.cpp and plan_fields.cpp.
#include "dist/pipeline_message.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "dist/plan_fields.h"
#include "dist/source_message.h"
#include "exec/sources/bucket_join_source.h"
#include "plan/logical_plan.h"
#include "udf/data_type_codec.h"
#include "udf/process/wire_message.h"
#include "udf/udf_spec_codec.h"
#include "udf/value_codec.h"

namespace ember::dist {

namespace {

using process::MessageReader;
using process::MessageWriter;

enum class NodeKind : uint8_t {
  End = 0,
  Filter = 1,
  Project = 2,
  ActorPool = 3,
  Explode = 4,
  Join = 5,
  UrlDownload = 6
};
/// The breaker that ends the first pipeline, when other ranks run it too (their partitions
/// then come back to rank 0 as partial states: aggregates, a top-k's best rows, a sort's
/// sorted rows). JoinTail: the first pipeline ends in a right or full join's tail, which its
/// join node plans itself on every rank (each rank's matched right rows go to rank 0 as its
/// partial states).
enum class BreakerKind : uint8_t {
  None = 0,
  GroupBy = 1,
  Aggregate = 2,
  TopK = 3,
  JoinTail = 4,
  Sort = 5,
  Limit = 6,   ///< travels so that other ranks stop each partition at the limit; rows still travel
  Shuffle = 7  ///< a join side's exchange by key hash (encode_join_side)
};

/// What a chain starts with: a source every rank reads, or the joined buckets of a join run as
/// a hash exchange, which each rank holds of its own.
enum class ChainStart : uint8_t { Source = 0, Buckets = 1 };

/// EMBER_DIST_BROADCAST_JOIN_BYTES, when set: the one threshold between a join every rank reads
/// the right side of whole and one run as a hash exchange (tests and benchmarks: 0 exchanges
/// every join that can).
std::optional<int64_t> broadcast_join_override() {
  const char* env = std::getenv("EMBER_DIST_BROADCAST_JOIN_BYTES");
  if (env == nullptr || *env == '\0') return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(env, &end, 10);
  if (*end != '\0' || v < 0)
    throw InvalidArgument(
        std::string("EMBER_DIST_BROADCAST_JOIN_BYTES must be a byte count, got '") + env + "'");
  return v;
}

/// The most a join's right side may hold (its files' bytes) for every rank to read it whole and
/// build its own hash table in memory (docs/cluster.md): a dimension table, not a second fact
/// table. A larger one is joined by a hash exchange of both sides.
int64_t broadcast_join_bytes() {
  constexpr int64_t kBroadcastJoinBytes = int64_t{64} << 20;
  return broadcast_join_override().value_or(kBroadcastJoinBytes);
}

/// A right side this small is read by every rank whatever the left side holds.
constexpr int64_t kTrifleJoinBytes = int64_t{1} << 20;

/// `bytes` as MiB (bytes under one), for a person.
std::string mebibytes(int64_t bytes) {
  if (bytes < (1 << 20)) return std::to_string(bytes) + " bytes";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

/// The bytes the sources under `node` read (source_bytes).
int64_t input_bytes(const LogicalNode& node) {
  int64_t bytes = 0;
  if (const auto* source = dynamic_cast<const SourceNode*>(&node))
    bytes += source_bytes(*source->source);
  for (const NodePtr& child : node.children) bytes += input_bytes(*child);
  return bytes;
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

NodePtr get_download(MessageReader& in, NodePtr input) {
  std::string url_column(in.get_string());
  std::string url_name(in.get_string());
  std::string output(in.get_string());
  DownloadOptions options;
  options.max_connections = in.get<int32_t>();
  options.on_error = in.get<uint8_t>() != 0 ? OnError::Null : OnError::Raise;
  return make_url_download(std::move(input), std::move(url_column), std::move(url_name),
                           std::move(output), options);
}

void put_sort_keys(MessageWriter& out, const std::vector<SortSpec>& keys) {
  out.put(static_cast<uint32_t>(keys.size()));
  for (const SortSpec& key : keys) {
    put_expr(out, *key.expr);
    out.put(static_cast<uint8_t>(key.descending));
    out.put(static_cast<uint8_t>(key.nulls_first));
  }
}

std::vector<SortSpec> get_sort_keys(MessageReader& in) {
  std::vector<SortSpec> keys(in.get<uint32_t>());
  for (SortSpec& key : keys) {
    key.expr = get_expr(in);
    key.descending = in.get<uint8_t>() != 0;
    key.nulls_first = in.get<uint8_t>() != 0;
  }
  return keys;
}

/// Writes a query's first pipeline, source first: walking down from the root, each kind of
/// node says whether it streams (it joins the pipeline when no breaker lies below it), breaks
/// (what lies above it is another pipeline's) or keeps the query on rank 0.
class FirstPipelineEncoder final : NodeVisitor {
 public:
  /// What the chain is for.
  enum class Mode {
    Query,  ///< a query's first pipeline
    Pick,   ///< likewise, picking a join to run as a hash exchange (picked())
    Side    ///< a side of a join run as a hash exchange: no breaker, no download
  };
  /// `broadcast`: `out` gets a join's right side, which every rank reads whole (no UDF, no
  /// breaker). `shuffled`: a join that travels as the joined buckets it reads.
  /// `pick_ranks`: in Mode::Pick, the ranks a picked join would run on.
  explicit FirstPipelineEncoder(MessageWriter& out, bool broadcast = false,
                                const ShuffledJoinRefs* shuffled = nullptr, Mode mode = Mode::Query,
                                int pick_ranks = 0)
      : out_(out),
        broadcast_(broadcast),
        shuffled_(shuffled),
        mode_(mode),
        pick_ranks_(pick_ranks) {}
  /// Writes `root`'s first pipeline; its output schema is the last node's.
  void encode(const LogicalNode& root) {
    root.accept(*this);
    out_.put(NodeKind::End);
    put_schema(out_, last_->schema);
    out_.put_string(breaker_);
    // What follows the breaker, when it is filters and projections only (the pipeline a write
    // spread by key range runs on every rank).
    out_.put(static_cast<uint8_t>(tail()));
    if (!tail()) return;
    tail_.put(NodeKind::End);
    out_.put_string(tail_.bytes());
    put_schema(out_, root.schema);
  }
  /// Writes `side` (a join's side) ending in its exchange by the hash of `keys`.
  void encode_side(const LogicalNode& side, const std::vector<std::string>& keys, int per_rank) {
    side.accept(*this);
    out_.put(NodeKind::End);
    put_schema(out_, last_->schema);
    MessageWriter exchange;
    exchange.put(BreakerKind::Shuffle);
    put_strings(exchange, keys);
    exchange.put(static_cast<int32_t>(per_rank));
    out_.put_string(exchange.bytes());
    out_.put(uint8_t{0});  // nothing travels after it
  }
  /// After encode() in Mode::Pick: the join it would run as a hash exchange, if any.
  const JoinNode* picked() const { return picked_; }
  /// After encode(): whether the first breaker travelled (other ranks send partial states).
  bool partials() const { return !breaker_.empty() && !row_cap_; }
  /// After encode(): whether the nodes above the first breaker, up to the root, travelled too
  /// (the breaker is a group-by or a sort that travelled, and they are filters and
  /// projections only).
  bool tail() const { return ranged_ && !breaker_.empty() && tail_ok_; }

 private:
  void visit(const SourceNode& n) override {
    out_.put(ChainStart::Source);
    put_source(out_, *n.source);
    out_.put(static_cast<int32_t>(n.source->num_partitions()));
    broadcast_bytes_ += source_bytes(*n.source);
    last_ = &n;
  }
  void visit(const FilterNode& n) override {
    MessageWriter& out = streams(n, true) ? out_ : tail_;
    out.put(NodeKind::Filter);
    put_expr(out, *n.predicate);
  }
  void visit(const ProjectNode& n) override {
    MessageWriter& out = streams(n, true) ? out_ : tail_;
    out.put(NodeKind::Project);
    out.put(static_cast<uint32_t>(n.exprs.size()));
    for (const auto& e : n.exprs) put_expr(out, *e);
  }
  void visit(const ActorPoolProjectNode& n) override {
    if (broadcast_) throw NotSpreadable{"a UDF on the right side of a join"};
    if (!streams(n)) return;
    out_.put(NodeKind::ActorPool);
    put_pool(out_, n);
  }
  void visit(const UrlDownloadNode& n) override {
    if (mode_ == Mode::Side) throw NotSpreadable{"a download below a join run as an exchange"};
    if (!streams(n)) return;
    out_.put(NodeKind::UrlDownload);
    out_.put_string(n.url_column);
    out_.put_string(n.url_name);
    out_.put_string(n.output_column);
    out_.put(static_cast<int32_t>(n.options.max_connections));
    out_.put(static_cast<uint8_t>(n.options.on_error == OnError::Null));
  }
  void visit(const ExplodeNode& n) override {
    if (!streams(n)) return;
    out_.put(NodeKind::Explode);
    out_.put_string(n.column);
  }
  /// A limit: other ranks send their rows, but stop each partition once it has n rows.
  void visit(const LimitNode& n) override {
    if (!breaks(n)) return;
    breaker_ = partial([&](MessageWriter& out) {
      out.put(BreakerKind::Limit);
      out.put(n.limit);
    });
    row_cap_ = true;
  }
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
    ranged_ = true;
    breaker_ = partial([&](MessageWriter& out) {
      out.put(BreakerKind::GroupBy);
      put_exprs(out, n.keys, false);
      put_exprs(out, n.aggregates, true);
    });
  }
  /// A full sort: each rank sorts its partitions and sends them sorted; rank 0 merges.
  void visit(const SortNode& n) override {
    if (!breaks(n)) return;
    ranged_ = true;
    breaker_ = partial([&](MessageWriter& out) {
      out.put(BreakerKind::Sort);
      put_sort_keys(out, n.keys);
    });
  }
  void visit(const TopKNode& n) override {
    // A top-k's best rows travel value by value: past this many, its rows travel as rows.
    constexpr int64_t kMostPartialTopK = 100'000;
    if (!breaks(n) || n.k > kMostPartialTopK) return;
    breaker_ = partial([&](MessageWriter& out) {
      out.put(BreakerKind::TopK);
      out.put(n.k);
      put_sort_keys(out, n.keys);
    });
  }
  /// A join streams when every rank can build its right side itself: each reads the right
  /// side whole (a small table, no UDF, no breaker) and probes it with its own partitions of
  /// the left. A right or full join's unmatched right rows are known only once every rank's
  /// probe has ended: it ends the first pipeline (its tail is the breaker), every rank sending
  /// rank 0 its rows and the right rows it matched, and rank 0 adding the unmatched ones.
  void visit(const JoinNode& n) override {
    if (shuffled_ != nullptr && &n == shuffled_->join) return put_buckets(n, *shuffled_);
    const bool tail = n.type == JoinType::Right || n.type == JoinType::Full;
    if (tail && broadcast_) throw NotSpreadable{"a breaker on the right side of a join"};
    if (tail && mode_ == Mode::Side)
      throw NotSpreadable{"a right or full join below a join run as an exchange"};
    // The lowest join of the first pipeline whose right side every rank cannot read whole, or
    // not as cheaply as exchanging both sides, is joined by a hash exchange of both sides, when
    // both can travel as chains.
    if (mode_ == Mode::Pick && picked_ == nullptr && !broadcast_ &&
        !broadcast_pays(n, pick_ranks_) && exchangeable(n)) {
      picked_ = &n;
      const ShuffledJoinRefs trial{&n, 0, 0, 1, 1};
      return put_buckets(n, trial);
    }
    if (!streams(n)) return;
    if (tail) {
      broken_ = true;
      MessageWriter kind;
      kind.put(BreakerKind::JoinTail);
      breaker_ = kind.bytes();
    }
    MessageWriter right;
    FirstPipelineEncoder side(right, true);
    side.encode(n.right());
    broadcast_bytes_ += side.broadcast_bytes_;
    if (side.broadcast_bytes_ > broadcast_join_bytes())
      throw NotSpreadable{"the right side of " + n.describe() + " (" +
                          std::to_string(side.broadcast_bytes_ >> 20) +
                          " MiB) is larger than what every rank reads again (" +
                          std::to_string(broadcast_join_bytes() >> 20) +
                          " MiB), and the join cannot run as a hash exchange"};
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

 public:
  /// Whether every one of `ranks` ranks reading `n`'s right side whole and building it itself
  /// costs less than a hash exchange of both sides: the right side has no UDF and no breaker,
  /// holds at most what every rank may (broadcast_join_bytes()), and, past a trifle, its bytes
  /// times the ranks are at most the left side's: a broadcast reads and builds the right side
  /// once per rank, an exchange reads each side once and moves most of both (bench/dist/run.sh
  /// j: on 3 ranks the two cost the same where the right side is a third to a half of the left).
  /// EMBER_DIST_BROADCAST_JOIN_BYTES, when set, is the one threshold. When it does not pay,
  /// `why` (when given) says why.
  static bool broadcast_pays(const JoinNode& n, int ranks, std::string* why = nullptr) {
    MessageWriter right;
    FirstPipelineEncoder side(right, true);
    try {
      side.encode(n.right());
    } catch (const NotSpreadable& e) {
      if (why) *why = "every rank cannot build its right side: " + e.why;
      return false;
    }
    const int64_t bytes = side.broadcast_bytes_;
    const std::optional<int64_t> fixed = broadcast_join_override();
    if (bytes > broadcast_join_bytes()) {
      if (why)
        *why = "its right side's " + mebibytes(bytes) + " are over what every rank may hold, " +
               (fixed ? "EMBER_DIST_BROADCAST_JOIN_BYTES=" + std::to_string(*fixed)
                      : mebibytes(broadcast_join_bytes()));
      return false;
    }
    if (fixed || ranks < 2 || bytes <= kTrifleJoinBytes) return true;
    const int64_t left = input_bytes(n.left());
    if (bytes * ranks <= left) return true;
    if (why)
      *why = "its right side's " + mebibytes(bytes) + " read by each of " + std::to_string(ranks) +
             " ranks cost more than exchanging them with the left side's " + mebibytes(left);
    return false;
  }

 private:
  /// Whether both of `n`'s sides can travel as chains that end in their exchange.
  static bool exchangeable(const JoinNode& n) {
    std::string why;
    return !encode_join_side(n.left(), n.on, 1, &why).empty() &&
           !encode_join_side(n.right(), n.on, 1, &why).empty();
  }
  /// A join run as a hash exchange, as the chain's source: what each rank joins of its own.
  void put_buckets(const JoinNode& n, const ShuffledJoinRefs& refs) {
    out_.put(ChainStart::Buckets);
    out_.put(refs.left);
    out_.put(refs.right);
    out_.put(static_cast<int32_t>(refs.ranks));
    out_.put(static_cast<int32_t>(refs.per_rank));
    put_strings(out_, n.on);
    out_.put(static_cast<uint8_t>(n.type));
    out_.put(static_cast<uint32_t>(n.right_columns.size()));
    for (const auto& [output, input] : n.right_columns) {
      out_.put_string(output);
      out_.put_string(input);
    }
    put_schema(out_, n.left().schema);
    put_schema(out_, n.right().schema);
    put_schema(out_, n.schema);
    out_.put(static_cast<int32_t>(refs.ranks * refs.per_rank));
    last_ = &n;
  }

  /// Walks below `n`; true when `n` belongs to the first pipeline (no breaker below it).
  /// Above the breaker, only a node that `travels_after` (a filter, a projection) keeps the
  /// nodes above it travelling too (tail()).
  bool streams(const LogicalNode& n, bool travels_after = false) {
    n.child().accept(*this);
    if (broken_) {
      if (!travels_after) tail_ok_ = false;
      return false;
    }
    last_ = &n;
    return true;
  }
  /// Walks below `n`; true when `n` is the first breaker (it ends the first pipeline).
  bool breaks(const LogicalNode& n) {
    if (broadcast_) throw NotSpreadable{"a breaker on the right side of a join"};
    if (mode_ == Mode::Side) throw NotSpreadable{"a breaker below a join run as an exchange"};
    n.child().accept(*this);
    const bool first = !broken_;
    if (!first) tail_ok_ = false;  // a second breaker: what follows runs on rank 0
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
  std::string breaker_;   ///< the first breaker, when other ranks run it (BreakerKind first)
  bool row_cap_ = false;  ///< breaker_ only caps each partition's rows (a limit): no partials
  const bool broadcast_;
  const ShuffledJoinRefs* shuffled_;
  const Mode mode_;
  const int pick_ranks_;
  const JoinNode* picked_ = nullptr;
  int64_t broadcast_bytes_ = 0;  ///< what the sources read (a join's right side: every rank)
  MessageWriter tail_;           ///< the filters and projections above the first breaker
  bool tail_ok_ = true;          ///< nothing else lies above it
  bool ranged_ = false;          ///< the first breaker is a group-by (a distinct) or a sort
};

/// `chain` under the breaker `bytes` describe (none: `chain`).
/// What decoding a chain needs beyond its bytes, and what it learns.
struct Decoding {
  const ChainContext* context = nullptr;
  std::optional<JoinSideExchange>* side = nullptr;
};

NodePtr with_breaker(NodePtr chain, std::string_view bytes, const Decoding& d) {
  if (bytes.empty()) return chain;
  auto in = MessageReader::unframed(bytes);
  switch (in.get<BreakerKind>()) {
    case BreakerKind::Shuffle: {
      if (d.side == nullptr) throw Error("distributed runner: a join side's exchange out of place");
      JoinSideExchange exchange;
      exchange.keys = get_strings(in);
      exchange.per_rank = in.get<int32_t>();
      *d.side = std::move(exchange);
      return chain;  // the rank plans the exchange after it
    }
    case BreakerKind::GroupBy: {
      std::vector<ExprPtr> keys = get_exprs(in);
      return make_group_by(std::move(chain), std::move(keys), get_exprs(in));
    }
    case BreakerKind::Aggregate:
      return make_aggregate(std::move(chain), get_exprs(in));
    case BreakerKind::TopK: {
      const auto k = in.get<int64_t>();
      return make_top_k(std::move(chain), k, get_sort_keys(in));
    }
    case BreakerKind::Sort:
      return make_sort(std::move(chain), get_sort_keys(in));
    case BreakerKind::Limit:
      return make_limit(std::move(chain), in.get<int64_t>());
    case BreakerKind::JoinTail:
      return chain;  // the join node below plans its tail itself
    case BreakerKind::None:
      break;
  }
  throw Error("distributed runner: a pipeline message holds an unknown breaker");
}

NodePtr decode_chain(MessageReader& in, const Decoding& d);

/// The joined buckets of a join run as a hash exchange: this rank's own.
NodePtr get_buckets(MessageReader& in, const Decoding& d) {
  const auto left = in.get<uint64_t>();
  const auto right = in.get<uint64_t>();
  const auto ranks = in.get<int32_t>();
  const auto per_rank = in.get<int32_t>();
  JoinShape shape;
  shape.on = get_strings(in);
  shape.type = static_cast<JoinType>(in.get<uint8_t>());
  for (auto n = in.get<uint32_t>(); n > 0; --n) {
    std::string output(in.get_string());
    shape.right_columns[output] = std::string(in.get_string());
  }
  shape.left = get_schema(in);
  shape.right = get_schema(in);
  shape.output = get_schema(in);
  if (d.context == nullptr || !d.context->buckets || ranks < 1 || per_rank < 1)
    throw Error("distributed runner: a join's buckets where this rank keeps none");
  std::shared_ptr<const JoinBuckets> left_buckets = d.context->buckets(left);
  std::shared_ptr<const JoinBuckets> right_buckets = d.context->buckets(right);
  return make_source(std::make_shared<BucketJoinSource>(
      std::move(shape), std::move(left_buckets), std::move(right_buckets), ranks, d.context->rank,
      per_rank, d.context->memory_budget / per_rank));
}

/// A join whose right side this rank reads whole, probed by `left`.
NodePtr get_join(MessageReader& in, NodePtr left, const Decoding& d) {
  std::vector<std::string> on = get_strings(in);
  const auto type = static_cast<JoinType>(in.get<uint8_t>());
  std::map<std::string, std::string> names;
  for (auto n = in.get<uint32_t>(); n > 0; --n) {
    std::string input(in.get_string());
    names[input] = std::string(in.get_string());
  }
  auto side = MessageReader::unframed(in.get_string());
  NodePtr right = decode_chain(side, d);
  return make_join(std::move(left), std::move(right), std::move(on), type, names);
}

/// The nodes a chain's encoder wrote after its source, up to NodeKind::End, over `node`.
NodePtr get_nodes(MessageReader& in, NodePtr node, const Decoding& d) {
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
      case NodeKind::UrlDownload:
        node = get_download(in, node);
        break;
      case NodeKind::Join:
        node = get_join(in, node, d);
        break;
      default:
        throw Error("distributed runner: a pipeline message holds an unknown node");
    }
  }
  return node;
}

/// A chain FirstPipelineEncoder wrote: its source, its nodes, its breaker.
NodePtr decode_chain(MessageReader& in, const Decoding& d) {
  NodePtr node = in.get<ChainStart>() == ChainStart::Buckets ? get_buckets(in, d) : get_source(in);
  const auto partitions = in.get<int32_t>();
  const Source& source = *static_cast<const SourceNode&>(*node).source;
  if (source.num_partitions() != partitions)
    throw Error("distributed runner: this rank reads " + source.describe() + " as " +
                std::to_string(source.num_partitions()) + " partitions, rank 0 as " +
                std::to_string(partitions) + "; every rank must see the same files");
  node = get_nodes(in, std::move(node), d);
  const Schema expected = get_schema(in);
  if (!(node->schema == expected))
    throw Error("distributed runner: this rank reads the source with other columns (" +
                node->schema.to_string() + ") than rank 0 (" + expected.to_string() +
                "); every rank must see the same files");
  node = with_breaker(std::move(node), in.get_string(), d);
  if (in.get<uint8_t>() == 0) return node;
  auto tail = MessageReader::unframed(in.get_string());
  node = get_nodes(tail, std::move(node), d);
  const Schema output = get_schema(in);
  if (!(node->schema == output))
    throw Error("distributed runner: the pipeline after the breaker yields other columns (" +
                node->schema.to_string() + ") here than on rank 0 (" + output.to_string() + ")");
  return node;
}

}  // namespace

std::string encode_first_pipeline(const LogicalNode& root, std::string* why, bool* partials,
                                  bool* tail, const ShuffledJoinRefs* shuffled) {
  try {
    MessageWriter out;
    out.begin(process::Op::Init);
    FirstPipelineEncoder encoder(out, false, shuffled);
    encoder.encode(root);
    if (partials) *partials = encoder.partials();
    if (tail) *tail = encoder.tail();
    return out.bytes();
  } catch (const NotSpreadable& e) {
    *why = e.why;
    return {};
  }
}

const LogicalNode* pick_shuffled_join(const LogicalNode& root, int ranks) {
  try {
    MessageWriter out;
    out.begin(process::Op::Init);
    FirstPipelineEncoder encoder(out, false, nullptr, FirstPipelineEncoder::Mode::Pick, ranks);
    encoder.encode(root);
    return encoder.picked();
  } catch (const NotSpreadable&) {
    return nullptr;
  }
}

std::string why_exchanged(const LogicalNode& join, int ranks) {
  std::string why;
  if (FirstPipelineEncoder::broadcast_pays(static_cast<const JoinNode&>(join), ranks, &why))
    return "every rank could read its right side whole";
  return why;
}

std::string encode_join_side(const LogicalNode& side, const std::vector<std::string>& keys,
                             int per_rank, std::string* why) {
  try {
    MessageWriter out;
    out.begin(process::Op::Init);
    FirstPipelineEncoder encoder(out, false, nullptr, FirstPipelineEncoder::Mode::Side);
    encoder.encode_side(side, keys, per_rank);
    return out.bytes();
  } catch (const NotSpreadable& e) {
    *why = e.why;
    return {};
  }
}

NodePtr decode_first_pipeline(std::string_view bytes, const ChainContext* context,
                              std::optional<JoinSideExchange>* side) {
  MessageReader in(bytes);
  return decode_chain(in, Decoding{context, side});
}

}  // namespace ember::dist
