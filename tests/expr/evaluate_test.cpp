// Evaluation of every operator over random data with nulls, checked row by row against the
// reference evaluator; plus division by zero, Kleene logic, casts and literal broadcast.
#include "expr/evaluate.h"

#include <gtest/gtest.h>

#include "fake_udf.h"
#include "reference.h"

namespace ember {
namespace {

using testref::Rows;

constexpr int64_t kRows = 3001;  // not a multiple of 64: exercises partial words

struct Data {
  std::vector<std::pair<std::string, TypeId>> spec = {
      {"i", TypeId::Int64}, {"j", TypeId::Int64}, {"x", TypeId::Float64}, {"y", TypeId::Float64},
      {"s", TypeId::Utf8},  {"t", TypeId::Utf8},  {"p", TypeId::Boolean}, {"q", TypeId::Boolean}};
  std::map<std::string, Rows> rows;
  Batch batch;

  Data() {
    std::vector<Field> fields;
    std::vector<Column> cols;
    uint32_t seed = 10;
    for (auto& [name, t] : spec) {
      // +5 rows then a slice at offset 5: inputs with a non-zero bit offset.
      Rows r = testref::random_rows(t, kRows + 5, seed++);
      cols.push_back(testref::column_of(t, r).slice(5, kRows));
      rows[name] = Rows(r.begin() + 5, r.end());
      fields.push_back(Field{name, DataType(t)});
    }
    batch = Batch(Schema(fields), cols);
  }
};

const Data& data() {
  static const Data d;
  return d;
}

void expect_rows(const Column& got, const Rows& want, const std::string& what) {
  ASSERT_EQ(got.size(), int64_t(want.size())) << what;
  int64_t nulls = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    nulls += want[i].index() == 0;
    ASSERT_TRUE(testref::same(got.get(int64_t(i)), want[i]))
        << what << " row " << i << ": got " << to_string(got.get(int64_t(i))) << ", want "
        << to_string(want[i]);
  }
  EXPECT_EQ(got.null_count(), nulls) << what;
}

Rows reference(BinaryOp op, const Rows& a, const Rows& b) {
  Rows out;
  for (size_t i = 0; i < a.size(); ++i) out.push_back(testref::binary(op, a[i], b[i]));
  return out;
}

const std::vector<BinaryOp> kArith = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div,
                                      BinaryOp::Mod};
const std::vector<BinaryOp> kCompare = {BinaryOp::Eq, BinaryOp::Ne, BinaryOp::Lt,
                                        BinaryOp::Le, BinaryOp::Gt, BinaryOp::Ge};

// Checks `l op r` for column/column and both column/literal shapes.
void check_op(BinaryOp op, const std::string& l, const std::string& r, const Value& literal) {
  const Data& d = data();
  Expr e = testref::apply(op, col(l), col(r));
  expect_rows(evaluate(*detail::ExprAccess::node(e), d.batch),
              reference(op, d.rows.at(l), d.rows.at(r)), e.to_string());
  const Rows lits(size_t(kRows), literal);
  Expr el = testref::apply(op, lit(literal), col(r));
  expect_rows(evaluate(*detail::ExprAccess::node(el), d.batch), reference(op, lits, d.rows.at(r)),
              el.to_string());
  Expr er = testref::apply(op, col(l), lit(literal));
  expect_rows(evaluate(*detail::ExprAccess::node(er), d.batch), reference(op, d.rows.at(l), lits),
              er.to_string());
}

TEST(EvaluateTest, ArithmeticMatchesReference) {
  for (BinaryOp op : kArith) {
    check_op(op, "i", "j", Value{int64_t{3}});
    check_op(op, "i", "j", Value{int64_t{-1}});
    check_op(op, "x", "y", Value{2.5});
    check_op(op, "i", "x", Value{int64_t{-7}});  // mixed: float64
    check_op(op, "x", "j", Value{int64_t{4}});
  }
}

TEST(EvaluateTest, ComparisonsMatchReference) {
  for (BinaryOp op : kCompare) {
    check_op(op, "i", "j", Value{int64_t{2}});
    check_op(op, "x", "y", Value{0.75});
    check_op(op, "i", "y", Value{1.5});
    check_op(op, "s", "t", Value{std::string("ab")});
    check_op(op, "s", "t", Value{std::string("\xC3")});  // bytewise: high bytes sort last
    check_op(op, "p", "q", Value{true});
    check_op(op, "p", "q", Value{false});
  }
}

TEST(EvaluateTest, LogicalMatchesKleeneReference) {
  for (BinaryOp op : {BinaryOp::And, BinaryOp::Or}) {
    check_op(op, "p", "q", Value{true});
    check_op(op, "p", "q", Value{false});
    check_op(op, "p", "q", Value{});  // null literal: unknown
  }
}

TEST(EvaluateTest, KleeneTruthTable) {
  const std::vector<std::optional<bool>> vals = {true, false, std::nullopt};
  std::vector<std::optional<bool>> a, b;
  for (auto x : vals) {
    for (auto y : vals) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  Batch batch(Schema({{"a", boolean()}, {"b", boolean()}}), {Column::from(a), Column::from(b)});
  const Value T{true}, F{false}, N{};
  // Rows: (T,T) (T,F) (T,N) (F,T) (F,F) (F,N) (N,T) (N,F) (N,N)
  expect_rows(evaluate(*detail::ExprAccess::node(col("a") && col("b")), batch),
              {T, F, N, F, F, F, N, F, N}, "&&");
  expect_rows(evaluate(*detail::ExprAccess::node(col("a") || col("b")), batch),
              {T, T, T, T, F, N, T, N, N}, "||");
  expect_rows(evaluate(*detail::ExprAccess::node(!col("a")), batch), {F, F, F, T, T, T, N, N, N},
              "!");
}

TEST(EvaluateTest, UnaryAndIsNull) {
  const Data& d = data();
  Rows neg, nots, isnull;
  for (const Value& v : d.rows.at("i")) {
    // -INT64_MIN does not fit in int64: null.
    const bool fits = v.index() != 0 && std::get<int64_t>(v) != std::numeric_limits<int64_t>::min();
    neg.push_back(fits ? Value{-std::get<int64_t>(v)} : Value{});
    isnull.push_back(v.index() == 0);
  }
  for (const Value& v : d.rows.at("p"))
    nots.push_back(v.index() == 0 ? Value{} : Value{!std::get<bool>(v)});
  expect_rows(evaluate(*detail::ExprAccess::node(-col("i")), d.batch), neg, "-i");
  expect_rows(evaluate(*detail::ExprAccess::node(!col("p")), d.batch), nots, "!p");
  Column m = evaluate(*detail::ExprAccess::node(col("i").is_null()), d.batch);
  expect_rows(m, isnull, "is_null");
  EXPECT_EQ(m.null_count(), 0);
  Rows negx;
  for (const Value& v : d.rows.at("x"))
    negx.push_back(v.index() == 0 ? Value{} : Value{-std::get<double>(v)});
  expect_rows(evaluate(*detail::ExprAccess::node(-col("x")), d.batch), negx, "-x");
}

TEST(EvaluateTest, DivisionByZero) {
  Batch b(Schema({{"a", int64()}, {"z", int64()}, {"f", float64()}}),
          {Column::from(std::vector<int64_t>{7, -7, std::numeric_limits<int64_t>::min()}),
           Column::from(std::vector<int64_t>{0, 0, -1}),
           Column::from(std::vector<double>{1.0, -1.0, 0.0})});
  const Value N{};
  // INT64_MIN / -1 does not fit in int64: null as well.
  expect_rows(evaluate(*detail::ExprAccess::node(col("a") / col("z")), b), {N, N, N}, "a / z");
  expect_rows(evaluate(*detail::ExprAccess::node(col("a") % col("z")), b),
              {N, N, Value{int64_t{0}}}, "a % z");
  expect_rows(evaluate(*detail::ExprAccess::node(col("a") / lit(int64_t{0})), b), {N, N, N},
              "a / 0");
  Column f = evaluate(*detail::ExprAccess::node(col("f") / lit(0.0)), b);
  EXPECT_EQ(f.value<double>(0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(f.value<double>(1), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(f.value<double>(2)));
  EXPECT_EQ(f.null_count(), 0);
  expect_rows(evaluate(*detail::ExprAccess::node(col("f") % lit(0.0)), b), {N, N, N}, "f % 0.0");
}

TEST(EvaluateTest, ColumnAndAliasAreZeroCopy) {
  const Data& d = data();
  Column c = evaluate(*detail::ExprAccess::node(col("s").alias("renamed")), d.batch);
  EXPECT_EQ(c.values_buffer(), d.batch.column("s").values_buffer());
  EXPECT_EQ(c.offset(), d.batch.column("s").offset());
}

TEST(EvaluateTest, LiteralsBroadcastAndNullLiteralsCoerce) {
  const Data& d = data();
  Column l = evaluate(*detail::ExprAccess::node(lit(int64_t{5})), d.batch);
  expect_rows(l, Rows(size_t(kRows), int64_t{5}), "lit 5");
  Column n = evaluate(*detail::ExprAccess::node(col("i") + lit(Value{})), d.batch);
  EXPECT_EQ(n.type(), int64());
  EXPECT_EQ(n.null_count(), kRows);
  Column nn = evaluate(*detail::ExprAccess::node(lit(Value{}) + lit(Value{})), d.batch);
  EXPECT_EQ(nn.type(), DataType());
  Column both = evaluate(*detail::ExprAccess::node(lit(int64_t{2}) * lit(int64_t{3})), d.batch);
  expect_rows(both, Rows(size_t(kRows), int64_t{6}), "2 * 3");
  Column cmp = evaluate(*detail::ExprAccess::node(col("s") == lit(Value{})), d.batch);
  EXPECT_EQ(cmp.type(), boolean());
  EXPECT_EQ(cmp.null_count(), kRows);
}

TEST(EvaluateTest, Casts) {
  Batch b(Schema({{"s", utf8()}, {"f", float64()}, {"i", int64()}, {"p", boolean()}}),
          {Column::from(std::vector<std::optional<std::string>>{" 42 ", "x", std::nullopt, "-1.5",
                                                                "TRUE", "+7"}),
           Column::from(std::vector<std::optional<double>>{1.9, -1.9, std::nullopt, 1e300,
                                                           std::nan(""), 0.5}),
           Column::from(std::vector<std::optional<int64_t>>{0, 3, std::nullopt, -4, 5, 6}),
           Column::from(
               std::vector<std::optional<bool>>{true, false, std::nullopt, true, false, true})});
  const Value N{};
  auto run = [&](const Expr& e) {
    return testref::rows_of(evaluate(*detail::ExprAccess::node(e), b));
  };
  EXPECT_EQ(run(col("s").cast(int64())), (Rows{int64_t{42}, N, N, N, N, int64_t{7}}));
  EXPECT_EQ(run(col("s").cast(float64())), (Rows{42.0, N, N, -1.5, N, 7.0}));
  EXPECT_EQ(run(col("s").cast(boolean())), (Rows{N, N, N, N, true, N}));
  EXPECT_EQ(run(col("f").cast(int64())), (Rows{int64_t{1}, int64_t{-1}, N, N, N, int64_t{0}}));
  EXPECT_EQ(run(col("i").cast(float64())), (Rows{0.0, 3.0, N, -4.0, 5.0, 6.0}));
  EXPECT_EQ(run(col("i").cast(boolean())), (Rows{false, true, N, true, true, true}));
  EXPECT_EQ(run(col("p").cast(int64())),
            (Rows{int64_t{1}, int64_t{0}, N, int64_t{1}, int64_t{0}, int64_t{1}}));
  const std::string s0 = "0", s3 = "3", sm4 = "-4";
  EXPECT_EQ(run(col("i").cast(utf8())), (Rows{s0, s3, N, sm4, std::string("5"), std::string("6")}));
  EXPECT_EQ(run(col("f").cast(utf8()))[0], Value{std::string("1.9")});
  EXPECT_EQ(run(col("p").cast(utf8()))[1], Value{std::string("false")});
  // Casting to the same type is the column itself.
  EXPECT_EQ(evaluate(*detail::ExprAccess::node(col("i").cast(int64())), b).values_buffer(),
            b.column("i").values_buffer());
  // Round trip of numbers through text.
  const Data& d = data();
  expect_rows(evaluate(*detail::ExprAccess::node(col("x").cast(utf8()).cast(float64())), d.batch),
              d.rows.at("x"), "x -> utf8 -> float64");
  expect_rows(evaluate(*detail::ExprAccess::node(col("i").cast(utf8()).cast(int64())), d.batch),
              d.rows.at("i"), "i -> utf8 -> int64");
}

TEST(EvaluateTest, EmptyBatch) {
  Batch b(Schema({{"a", int64()}}), {Column::from(std::vector<int64_t>{})});
  EXPECT_EQ(evaluate(*detail::ExprAccess::node(col("a") + lit(int64_t{1})), b).size(), 0);
  EXPECT_EQ(evaluate(*detail::ExprAccess::node(col("a") > lit(1.0)), b).type(), boolean());
}

TEST(EvaluateTest, TypeErrorsAtRunTimeToo) {
  const Data& d = data();
  EXPECT_THROW(evaluate(*detail::ExprAccess::node(col("s") + col("i")), d.batch), TypeError);
  EXPECT_THROW(evaluate(*detail::ExprAccess::node(col("nope") + col("i")), d.batch),
               InvalidArgument);
}

TEST(EvaluateTest, CallsStatelessUdfInlineWithArgumentColumns) {
  // The evaluator hands the handle one column per argument, named as a projection would be.
  std::vector<std::string> seen;
  auto udf = std::make_shared<testref::FakeUdf>("plus", int64(), false, [&](const Batch& b) {
    for (const Field& f : b.schema().fields()) seen.push_back(f.name);
    ColumnBuilder out(int64(), b.num_rows());
    for (int64_t i = 0; i < b.num_rows(); ++i)
      out.append(b.column(0).value<int64_t>(i) + b.column(1).value<int64_t>(i));
    return out.finish();
  });
  const Batch in(Schema({{"n", int64()}}), {Column::from(std::vector<int64_t>{1, 2, 3})});
  const Expr e = testref::call(udf, {col("n"), col("n") * lit(int64_t{2})});
  const Column r = evaluate(*detail::ExprAccess::node(e), in);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(r.value<int64_t>(i), 3 * (i + 1));
  EXPECT_EQ(seen, (std::vector<std::string>{"n", "(n * 2)"}));
  // A stateful call belongs in an actor pool; evaluating it inline is an error.
  auto stateful = std::make_shared<testref::FakeUdf>("pooled", int64(), true);
  EXPECT_THROW(evaluate(*detail::ExprAccess::node(testref::call(stateful, {col("n")})), in), Error);
}

}  // namespace
}  // namespace ember
