// Schemas, expressions and name lists as message fields.
#include "dist/plan_fields.h"

#include "udf/data_type_codec.h"
#include "udf/udf_spec_codec.h"
#include "udf/value_codec.h"

namespace ember::dist {

using process::MessageReader;
using process::MessageWriter;

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

void put_expr(MessageWriter& out, const ExprNode& e, bool aggregate) {
  std::shared_ptr<const UdfSpec> udf;
  if (e.kind == ExprKind::UdfCall) {
    udf = spec_of(e.udf);
    if (udf->portable_kind.empty())
      throw NotSpreadable{
          "a stateless UDF call (udf '" + udf->name +
          "': a C++ lambda or unregistered function exists only in rank 0's program; "
          "EMBER_REGISTER_FN makes a plain function travel)"};
  }
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
  if (udf) out.put_string(encode_udf_spec(*udf));  // its function, pickled (portable_kind)
}

void put_exprs(MessageWriter& out, const std::vector<ExprPtr>& exprs, bool aggregates) {
  out.put(static_cast<uint32_t>(exprs.size()));
  for (const auto& e : exprs) put_expr(out, *e, aggregates);
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
  const auto function = in.get<uint8_t>();
  if (function > static_cast<uint8_t>(kLastFunctionId)) {
    throw Error("distributed runner: a pipeline message holds an unknown function");
  }
  e->function = static_cast<FunctionId>(function);
  const auto num_params = in.get<uint32_t>();
  for (uint32_t i = 0; i < num_params; ++i) e->params.push_back(get_value(in));
  const auto n = in.get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) e->children.push_back(get_expr(in));
  if (e->kind == ExprKind::UdfCall) e->udf = decode_udf_spec(in.get_string());
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

}  // namespace ember::dist
