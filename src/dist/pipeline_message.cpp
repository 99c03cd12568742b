// Encoding logical nodes, expressions, types and values with the runner's message framing.
#include "dist/pipeline_message.h"

#include <variant>

#include "exec/sources/file_scan_source.h"
#include "exec/sources/range_source.h"
#include "plan/logical_plan.h"
#include "udf/data_type_codec.h"
#include "udf/failure_policy.h"
#include "udf/process/wire_message.h"
#include "udf/udf_spec_codec.h"

namespace ember::dist {

namespace {

using process::MessageReader;
using process::MessageWriter;

enum class SourceKind : uint8_t { Csv = 1, Jsonl = 2, Range = 3 };
enum class NodeKind : uint8_t { Filter = 1, Project = 2, ActorPool = 3 };

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

void put_value(MessageWriter& out, const Value& v) {
  out.put(static_cast<uint8_t>(v.index()));
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
        } else if constexpr (std::is_same_v<T, std::string>) {
          out.put_string(x);
        } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>) {
          out.put_string(std::string_view(reinterpret_cast<const char*>(x.data()), x.size()));
        } else if constexpr (std::is_same_v<T, List>) {
          throw NotSpreadable{"a list literal"};
        } else {
          out.put(x);
        }
      },
      v);
}

Value get_value(MessageReader& in) {
  switch (in.get<uint8_t>()) {
    case 0:
      return Value{};
    case 1:
      return Value{in.get<bool>()};
    case 2:
      return Value{in.get<int64_t>()};
    case 3:
      return Value{in.get<double>()};
    case 4:
      return Value{std::string(in.get_string())};
    case 5:
      return Value{in.get<float>()};
    case 6: {
      const std::string_view b = in.get_string();
      return Value{std::vector<uint8_t>(b.begin(), b.end())};
    }
    case 7:
      return Value{in.get<Timestamp>()};
    default:
      throw Error("distributed runner: a pipeline message holds an unknown value");
  }
}

void put_expr(MessageWriter& out, const ExprNode& e) {
  if (e.kind == ExprKind::UdfCall) throw NotSpreadable{"a stateless UDF call"};
  if (e.kind == ExprKind::Aggregate) throw NotSpreadable{"an aggregate below a breaker"};
  out.put(static_cast<uint8_t>(e.kind));
  out.put_string(e.name);
  put_value(out, e.literal);
  out.put(static_cast<uint8_t>(e.binary));
  out.put(static_cast<uint8_t>(e.unary));
  out.put(static_cast<uint8_t>(e.agg));
  put_data_type(out, e.cast_to);
  out.put(e.index);
  out.put(static_cast<uint32_t>(e.children.size()));
  for (const auto& c : e.children) put_expr(out, *c);
}

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
  const auto n = in.get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) e->children.push_back(get_expr(in));
  return e;
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

void put_source(MessageWriter& out, const Source& source) {
  if (const auto* csv = dynamic_cast<const CsvSource*>(&source)) {
    out.put(SourceKind::Csv);
    out.put_string(csv->pattern());
    out.put(csv->options().delimiter);
    out.put(csv->options().infer_rows);
    out.put(csv->options().split_bytes);
    put_schema(out, csv->schema());  // the same columns, without inferring them again
  } else if (const auto* jsonl = dynamic_cast<const JsonlSource*>(&source)) {
    out.put(SourceKind::Jsonl);
    out.put_string(jsonl->pattern());
    out.put(jsonl->options().infer_rows);
    out.put(jsonl->options().split_bytes);
  } else if (const auto* range = dynamic_cast<const RangeSource*>(&source)) {
    out.put(SourceKind::Range);
    out.put(range->rows());
    out.put(static_cast<int32_t>(range->num_partitions()));
  } else {
    throw NotSpreadable{"its source (" + source.describe() +
                        ") is not a CSV or JSON-lines scan or a range"};
  }
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
      return make_source(std::make_shared<CsvSource>(std::move(pattern), std::move(options)));
    }
    case SourceKind::Jsonl: {
      std::string pattern(in.get_string());
      JsonlOptions options;
      options.infer_rows = in.get<int64_t>();
      options.split_bytes = in.get<int64_t>();
      return make_source(std::make_shared<JsonlSource>(std::move(pattern), options));
    }
    case SourceKind::Range: {
      const auto n = in.get<int64_t>();
      return make_source(std::make_shared<RangeSource>(n, in.get<int32_t>()));
    }
  }
  throw Error("distributed runner: a pipeline message holds an unknown source");
}

void put_pool(MessageWriter& out, const ActorPoolProjectNode& n) {
  const UdfSpec& spec = *n.udf;
  if (FailurePolicy(spec).isolates())
    throw NotSpreadable{"udf '" + spec.name + "' nulls or skips failed rows"};
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

bool is_breaker(const LogicalNode& n) {
  return dynamic_cast<const LimitNode*>(&n) || dynamic_cast<const RepartitionNode*>(&n) ||
         dynamic_cast<const AggregateNode*>(&n) || dynamic_cast<const GroupByNode*>(&n) ||
         dynamic_cast<const SortNode*>(&n) || dynamic_cast<const TopKNode*>(&n);
}

/// The nodes from the source up to (not including) the first breaker, source first.
std::vector<const LogicalNode*> first_chain(const LogicalNode& root) {
  std::vector<const LogicalNode*> path;  // root first
  for (const LogicalNode* n = &root;; n = n->children[0].get()) {
    path.push_back(n);
    if (n->children.size() > 1) throw NotSpreadable{"it joins two inputs"};
    if (n->children.empty()) break;
  }
  std::vector<const LogicalNode*> chain;
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const LogicalNode* n = *it;
    const bool streams = dynamic_cast<const SourceNode*>(n) || dynamic_cast<const FilterNode*>(n) ||
                         dynamic_cast<const ProjectNode*>(n) ||
                         dynamic_cast<const ActorPoolProjectNode*>(n);
    if (streams) {
      chain.push_back(n);
      continue;
    }
    if (!is_breaker(*n)) throw NotSpreadable{"its first pipeline holds '" + n->describe() + "'"};
    break;
  }
  return chain;
}

}  // namespace

std::string encode_first_pipeline(const LogicalNode& root, std::string* why) {
  try {
    const std::vector<const LogicalNode*> chain = first_chain(root);
    MessageWriter out;
    out.begin(process::Op::Init);
    put_source(out, *dynamic_cast<const SourceNode&>(*chain.front()).source);
    out.put(static_cast<uint32_t>(chain.size() - 1));
    for (size_t i = 1; i < chain.size(); ++i) {
      const LogicalNode* n = chain[i];
      if (const auto* f = dynamic_cast<const FilterNode*>(n)) {
        out.put(NodeKind::Filter);
        put_expr(out, *f->predicate);
      } else if (const auto* p = dynamic_cast<const ProjectNode*>(n)) {
        out.put(NodeKind::Project);
        out.put(static_cast<uint32_t>(p->exprs.size()));
        for (const auto& e : p->exprs) put_expr(out, *e);
      } else {
        out.put(NodeKind::ActorPool);
        put_pool(out, dynamic_cast<const ActorPoolProjectNode&>(*n));
      }
    }
    put_schema(out, chain.back()->schema);
    return out.bytes();
  } catch (const NotSpreadable& e) {
    *why = e.why;
    return {};
  }
}

NodePtr decode_first_pipeline(std::string_view bytes) {
  MessageReader in(bytes);
  NodePtr node = get_source(in);
  const auto n = in.get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) {
    switch (in.get<NodeKind>()) {
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
      default:
        throw Error("distributed runner: a pipeline message holds an unknown node");
    }
  }
  const Schema expected = get_schema(in);
  if (!(node->schema == expected))
    throw Error("distributed runner: this rank reads the source with other columns (" +
                node->schema.to_string() + ") than rank 0 (" + expected.to_string() +
                "); every rank must see the same files");
  return node;
}

}  // namespace ember::dist
