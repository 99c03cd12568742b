// Compiled expressions checked against the node-by-node evaluator: every operator and type and
// operand shape, overflow (a null row: the evaluator's), division by zero, the divisibility
// strength reduction, what falls back to the evaluator, and randomly generated expression trees.
#include "expr/fused_program.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <limits>
#include <random>
#include <thread>

#include "core/bitmap.h"
#include "expr/evaluate.h"
#include "expr/wrapping_arithmetic.h"
#include "reference.h"

namespace ember {
namespace {

constexpr int64_t kRows = 3001;  // three chunks and a short one; not a multiple of 8 or 64
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Interesting int64s: extremes, their neighbours, 0, +-1, and multiples of small divisors.
int64_t random_int(std::mt19937_64& rng, bool nonzero) {
  static const int64_t special[] = {kMin,
                                    kMin + 1,
                                    kMax,
                                    kMax - 1,
                                    -1,
                                    1,
                                    0,
                                    7,
                                    -7,
                                    21,
                                    -42,
                                    1 << 20,
                                    int64_t(3) << 40,
                                    6148914691236517205};
  int64_t v;
  switch (rng() % 4) {
    case 0:
      v = special[rng() % std::size(special)];
      break;
    case 1:
      v = int64_t(rng());
      break;
    default:
      v = int64_t(rng() % 201) - 100;
  }
  return nonzero && v == 0 ? 5 : v;
}

double random_float(std::mt19937_64& rng, bool nonzero) {
  static const double special[] = {0.0,
                                   -0.0,
                                   1.5,
                                   -2.25,
                                   1e19,
                                   -1e19,
                                   9.3e18,
                                   1e300,
                                   std::numeric_limits<double>::infinity(),
                                   std::numeric_limits<double>::quiet_NaN()};
  double v = rng() % 3 == 0 ? special[rng() % std::size(special)]
                            : double(int64_t(rng() % 2001) - 1000) / 8.0;
  return nonzero && v == 0 ? 0.5 : v;
}

// A batch without nulls: i, j int64 (j holds zeros), k int64 without zeros; x, y float64 (y
// holds zeros), z float64 without zeros; p, q bool. Sliced at offset 3 so bool columns start
// mid-byte. `small` keeps the integers within +-10^6, so that no + - * of two of them, or of
// one and a small literal, overflows (an overflowing row is null: the evaluator's).
Batch make_batch(int64_t rows, uint64_t seed, bool small = false) {
  std::mt19937_64 rng(seed);
  const int64_t n = rows + 3;
  std::vector<int64_t> i(n), j(n), k(n);
  std::vector<double> x(n), y(n), z(n);
  std::vector<bool> p(n), q(n);
  for (int64_t r = 0; r < n; ++r) {
    i[r] = small ? int64_t(rng() % 2000001) - 1000000 : random_int(rng, false);
    j[r] = small ? int64_t(rng() % 2001) - 1000 : random_int(rng, false);
    k[r] = small ? int64_t(rng() % 1000) + 1 : random_int(rng, true);
    x[r] = random_float(rng, false);
    y[r] = random_float(rng, false);
    z[r] = random_float(rng, true);
    p[r] = rng() & 1;
    q[r] = rng() % 3 == 0;
  }
  Schema schema({{"i", int64()},
                 {"j", int64()},
                 {"k", int64()},
                 {"x", float64()},
                 {"y", float64()},
                 {"z", float64()},
                 {"p", boolean()},
                 {"q", boolean()}});
  Batch b(schema, {Column::from(i), Column::from(j), Column::from(k), Column::from(x),
                   Column::from(y), Column::from(z), Column::from(p), Column::from(q)});
  return b.slice(3, rows);
}

const Batch& batch() {
  static const Batch b = make_batch(kRows, 42);
  return b;
}

// The same shape, with integers too small to overflow.
const Batch& small() {
  static const Batch b = make_batch(kRows, 43, true);
  return b;
}

void expect_same(const Column& got, const Column& want, const std::string& what) {
  ASSERT_EQ(got.type(), want.type()) << what;
  ASSERT_EQ(got.size(), want.size()) << what;
  ASSERT_EQ(got.null_count(), want.null_count()) << what;
  for (int64_t r = 0; r < want.size(); ++r) {
    ASSERT_TRUE(testref::same(got.get(r), want.get(r)))
        << what << " row " << r << ": got " << to_string(got.get(r)) << ", want "
        << to_string(want.get(r));
  }
}

enum class Path { Fused, Fallback, NotCompiled };

// Runs `e` both ways over `b`; returns which path the compiled side took.
Path check(const Expr& e, const Batch& b = batch()) {
  const Column want = evaluate(*detail::ExprAccess::node(e), b);
  auto program = FusedProgram::compile(*detail::ExprAccess::node(e), b.schema());
  if (!program) return Path::NotCompiled;
  EXPECT_EQ(program->type(), want.type()) << e.to_string();
  std::optional<Column> got = program->evaluate(b);
  if (!got) return Path::Fallback;
  expect_same(*got, want, e.to_string());
  return Path::Fused;
}

const BinaryOp kArith[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div,
                           BinaryOp::Mod};
const BinaryOp kCompare[] = {BinaryOp::Eq, BinaryOp::Ne, BinaryOp::Lt,
                             BinaryOp::Le, BinaryOp::Gt, BinaryOp::Ge};

// `l op r` as column/column, literal/column and column/literal, all on the fast path over `b`.
void expect_fused_shapes(BinaryOp op, const std::string& l, const std::string& r,
                         const Value& literal, const Batch& b = batch()) {
  const Expr shapes[] = {testref::apply(op, col(l), col(r)),
                         testref::apply(op, lit(literal), col(r)),
                         testref::apply(op, col(l), lit(literal))};
  for (const Expr& e : shapes) EXPECT_EQ(check(e, b), Path::Fused) << e.to_string();
}

TEST(FusedProgramTest, ArithmeticEveryTypeAndShape) {
  for (BinaryOp op : kArith) {
    expect_fused_shapes(op, "i", "k", Value{int64_t{3}}, small());
    expect_fused_shapes(op, "i", "k", Value{int64_t{-1}}, small());
    // Over extremes some rows overflow (null): the program declines them, or agrees.
    for (const Value& v : {Value{int64_t{3}}, Value{int64_t{-1}}, Value{kMin}}) {
      for (const Expr& e :
           {testref::apply(op, col("i"), col("k")), testref::apply(op, lit(v), col("k")),
            testref::apply(op, col("i"), lit(v))}) {
        EXPECT_NE(check(e), Path::NotCompiled) << e.to_string();
      }
    }
    expect_fused_shapes(op, "x", "z", Value{2.5});
    expect_fused_shapes(op, "i", "z", Value{-0.75});                // mixed: float64
    expect_fused_shapes(op, "x", "k", Value{int64_t{4}}, small());  // 4 op k is int64
  }
  // float / 0 is IEEE (inf, NaN), never null.
  EXPECT_EQ(check(col("x") / col("y")), Path::Fused);
  EXPECT_EQ(check(col("x") / lit(0.0)), Path::Fused);
  EXPECT_EQ(check(col("x") / lit(int64_t{0})), Path::Fused);
}

TEST(FusedProgramTest, ComparisonsEveryTypeAndShape) {
  for (BinaryOp op : kCompare) {
    expect_fused_shapes(op, "i", "j", Value{int64_t{7}});
    expect_fused_shapes(op, "i", "j", Value{kMax});
    expect_fused_shapes(op, "x", "y", Value{0.0});
    expect_fused_shapes(op, "x", "y", Value{std::numeric_limits<double>::quiet_NaN()});
    expect_fused_shapes(op, "i", "y", Value{1.5});  // mixed: compared as float64
    expect_fused_shapes(op, "x", "j", Value{int64_t{-3}});
    expect_fused_shapes(op, "p", "q", Value{true});
    expect_fused_shapes(op, "p", "q", Value{false});
  }
}

TEST(FusedProgramTest, LogicNotNegateIsNull) {
  for (BinaryOp op : {BinaryOp::And, BinaryOp::Or}) {
    expect_fused_shapes(op, "p", "q", Value{true});
    expect_fused_shapes(op, "p", "q", Value{false});
  }
  EXPECT_EQ(check(!col("p")), Path::Fused);
  EXPECT_EQ(check(!(col("i") < col("j")) || col("q")), Path::Fused);
  EXPECT_EQ(check(-col("i")), Path::Fallback);  // -INT64_MIN does not fit: a null row
  EXPECT_EQ(check(-col("i"), small()), Path::Fused);
  EXPECT_EQ(check(-col("x")), Path::Fused);
  EXPECT_EQ(check((col("i") + col("j")).is_null(), small()), Path::Fused);
  EXPECT_EQ(check(col("p").is_null() || col("q")), Path::Fused);
}

TEST(FusedProgramTest, Casts) {
  EXPECT_EQ(check(col("i").cast(float64()) * lit(0.5)), Path::Fused);
  EXPECT_EQ(check(col("i").cast(boolean()) && col("p")), Path::Fused);
  EXPECT_EQ(check(col("x").cast(boolean()) || col("q")), Path::Fused);  // NaN is true
  EXPECT_EQ(check(col("p").cast(int64()) + col("i"), small()), Path::Fused);
  EXPECT_EQ(check(col("q").cast(float64()) - col("x")), Path::Fused);
  EXPECT_EQ(check(col("i").cast(int64()) + lit(int64_t{1}), small()), Path::Fused);
  EXPECT_EQ(check((col("i").cast(float64()) / lit(1e3)).cast(int64()) + col("k"), small()),
            Path::Fused);
  // NaN and values beyond int64 have no integer: those rows are null, so the evaluator runs.
  EXPECT_EQ(check(col("x").cast(int64()) + col("i")), Path::Fallback);
}

TEST(FusedProgramTest, OverflowIsNullAndFallsBack) {
  Batch b(Schema({{"a", int64()}}), {Column::from(std::vector<int64_t>{kMax, kMin, -1, 0, 1})});
  // Each has a row whose result leaves int64 (or, the last, a zero divisor): a null row, so
  // the program declines the batch and the evaluator answers.
  for (const Expr& e :
       {col("a") + lit(int64_t{1}), col("a") - lit(int64_t{1}), col("a") * lit(int64_t{-1}),
        col("a") * lit(kMax), -col("a"), col("a") / lit(int64_t{-1}),
        col("a") * lit(int64_t{2}) + lit(int64_t{1}), lit(kMin) / col("a") + lit(int64_t{0})}) {
    EXPECT_EQ(check(e, b), Path::Fallback) << e.to_string();
  }
  EXPECT_EQ(check(col("a") % lit(int64_t{-1}), b), Path::Fused);  // never overflows
  const Column sum = evaluate(*detail::ExprAccess::node(col("a") + lit(int64_t{1})), b);
  const Value N{};
  const std::vector<Value> want = {N, Value{kMin + 1}, Value{int64_t{0}}, Value{int64_t{1}},
                                   Value{int64_t{2}}};
  for (int64_t r = 0; r < 5; ++r) EXPECT_EQ(sum.get(r), want[size_t(r)]) << r;
}

TEST(FusedProgramTest, MultiplyAddDeclinesExactlyPastItsRange) {
  // x * scale + offset fits for x in [lo, hi]; the boundaries stay compiled, one past falls back.
  for (auto [scale, offset] : {std::pair{int64_t{3}, int64_t{1}}, std::pair{int64_t{-3}, kMax},
                               std::pair{int64_t{7}, kMin + 5}, std::pair{int64_t{-1}, int64_t{-1}},
                               std::pair{kMax, int64_t{0}}, std::pair{int64_t{2}, int64_t{-9}}}) {
    const AffineRange r = AffineRange::of(scale, offset);
    const Expr e = col("a") * lit(scale) + lit(offset);
    Batch inside(Schema({{"a", int64()}}), {Column::from(std::vector<int64_t>{r.lo, r.hi, 0})});
    EXPECT_EQ(check(e, inside), Path::Fused) << e.to_string();
    // One past each end, where there is one (computed without overflowing at the type's ends).
    std::vector<int64_t> pasts;
    if (r.lo != kMin) pasts.push_back(r.lo - 1);
    if (r.hi != kMax) pasts.push_back(r.hi + 1);
    for (int64_t past : pasts) {
      Batch outside(Schema({{"a", int64()}}), {Column::from(std::vector<int64_t>{past})});
      EXPECT_EQ(check(e, outside), Path::Fallback) << e.to_string() << " at " << past;
      EXPECT_TRUE(evaluate(*detail::ExprAccess::node(e), outside).is_null(0)) << past;
    }
  }
}

TEST(FusedProgramTest, MultiplyAddIsOnePass) {
  const Expr i = col("i");
  const Expr three = lit(int64_t{3}), big = lit(kMax), one = lit(int64_t{1}), low = lit(kMin);
  for (const Expr& e : {i * three + one, three * i + one, one + i * three, one + three * i,
                        i * three - one, one - i * three}) {
    EXPECT_EQ(check(e, small()), Path::Fused) << e.to_string();
  }
  // Past int64 for some rows: null rows, the evaluator's.
  for (const Expr& e :
       {three * i - low, low - three * i, i * big + big, (i * three + one) * big - one}) {
    EXPECT_EQ(check(e, small()), Path::Fallback) << e.to_string();
  }
  auto p = FusedProgram::compile(*detail::ExprAccess::node(i * three + one), batch().schema());
  EXPECT_EQ(p->num_instructions(), 1u);
  // A column operand is not a constant: an ordinary multiply then add.
  p = FusedProgram::compile(*detail::ExprAccess::node(i * three + col("j")), batch().schema());
  EXPECT_EQ(p->num_instructions(), 2u);
  EXPECT_EQ(check(i * three + col("j"), small()), Path::Fused);
  EXPECT_EQ(check(i * col("j") + one, small()), Path::Fused);
}

TEST(FusedProgramTest, DivisionByZeroIsNull) {
  // A column divisor holding zeros: those rows are null, which only the evaluator produces.
  for (BinaryOp op : {BinaryOp::Div, BinaryOp::Mod}) {
    EXPECT_EQ(check(testref::apply(op, col("i"), col("j"))), Path::Fallback);
    EXPECT_EQ(check(testref::apply(op, lit(int64_t{5}), col("j"))), Path::Fallback);
    // A literal zero makes every row null: not compiled at all.
    EXPECT_EQ(check(testref::apply(op, col("i"), lit(int64_t{0}))), Path::NotCompiled);
  }
  EXPECT_EQ(check(col("x") % col("y")), Path::Fallback);
  EXPECT_EQ(check(col("x") % lit(0.0)), Path::NotCompiled);
  // With a non-zero divisor in every row, no row can be null.
  EXPECT_EQ(check(col("i") / col("k"), small()), Path::Fused);
  EXPECT_EQ(check(col("x") % col("z")), Path::Fused);
}

TEST(FusedProgramTest, DivisionByEveryLiteralMatchesEvaluator) {
  // Both paths divide by a literal through the same kernel; over extremes, negatives and -1.
  for (int64_t d : {int64_t{1}, int64_t{-1}, int64_t{2}, int64_t{3}, int64_t{7}, int64_t{-7},
                    int64_t{64}, int64_t{-64}, int64_t{1000003}, kMax, kMin, kMin + 1}) {
    for (BinaryOp op : {BinaryOp::Div, BinaryOp::Mod}) {
      // INT64_MIN / -1 does not fit: a null row (the batch holds INT64_MIN).
      const Path extremes = op == BinaryOp::Div && d == -1 ? Path::Fallback : Path::Fused;
      EXPECT_EQ(check(testref::apply(op, col("i"), lit(d))), extremes) << d;
      EXPECT_EQ(check(testref::apply(op, col("i") * col("k"), lit(d)), small()), Path::Fused) << d;
    }
  }
}

TEST(FusedProgramTest, DivisionOfNullsAndByZeroMatchesEvaluator) {
  // Nulls in the dividend, or a zero divisor, are the evaluator's: the program declines.
  const Batch b(Schema({{"v", int64()}}),
                {Column::from(std::vector<std::optional<int64_t>>{kMin, std::nullopt, -7, 0})});
  for (BinaryOp op : {BinaryOp::Div, BinaryOp::Mod}) {
    EXPECT_EQ(check(testref::apply(op, col("v"), lit(int64_t{-1})), b), Path::Fallback);
    EXPECT_EQ(check(testref::apply(op, col("v"), lit(int64_t{0})), b), Path::NotCompiled);
  }
}

TEST(FusedProgramTest, DivisibilityTestMatchesRemainder) {
  const int64_t divisors[] = {1,
                              -1,
                              2,
                              -2,
                              3,
                              7,
                              -7,
                              8,
                              12,
                              -12,
                              14,
                              1000000007,
                              kMax,
                              kMin,
                              int64_t(1) << 62,
                              -(int64_t(1) << 40) * 3};
  std::vector<int64_t> values = {kMin, kMin + 1, kMax, kMax - 1, 0, 1, -1};
  std::mt19937_64 rng(7);
  for (int64_t d : divisors) {
    for (int64_t m : {int64_t{-3}, int64_t{-1}, int64_t{1}, int64_t{2}, int64_t{1} << 20}) {
      const int64_t v = int64_t(uint64_t(d) * uint64_t(m));  // multiples (wrapped)
      values.insert(values.end(), {v, int64_t(uint64_t(v) + 1), int64_t(uint64_t(v) - 1)});
    }
  }
  for (int r = 0; r < 2000; ++r) values.push_back(random_int(rng, false));
  Batch b(Schema({{"a", int64()}}), {Column::from(values)});
  for (int64_t d : divisors) {
    for (const Expr& e :
         {col("a") % lit(d) == lit(int64_t{0}), lit(int64_t{0}) != col("a") % lit(d)}) {
      auto p = FusedProgram::compile(*detail::ExprAccess::node(e), b.schema());
      ASSERT_TRUE(p) << e.to_string();
      EXPECT_EQ(check(e, b), Path::Fused) << e.to_string();
    }
    const Expr affine = (col("i") * lit(int64_t{3}) + lit(int64_t{1})) % lit(d) == lit(int64_t{0});
    EXPECT_EQ(check(affine, small()), Path::Fused) << affine.to_string();
    const auto t = fused::DivisibilityTest::of(d);
    for (int64_t v : values) {
      uint8_t got = 2;
      fused::divisible_i64(&v, t, false, &got, 1);
      const bool want = d == -1 || v % d == 0;  // (v % -1 overflows for INT64_MIN in C++)
      ASSERT_EQ(got, want ? 1 : 0) << v << " % " << d;
    }
  }
  // The divisibility form is one kernel call, not a remainder and a compare.
  auto p = FusedProgram::compile(
      *detail::ExprAccess::node(col("a") % lit(int64_t{7}) == lit(int64_t{0})), b.schema());
  EXPECT_EQ(p->num_instructions(), 1u);
}

// The expression library's numeric functions compile, over every operand shape, and give the
// evaluator's values; results that would be null (abs of INT64_MIN, a rounding that overflows)
// send the batch back to the evaluator.
TEST(FusedProgramTest, FunctionsMatchEvaluator) {
  const Batch& b = small();
  const Expr x = col("x"), i = col("i");
  for (const Expr& e : {x.abs(),
                        x.floor(),
                        x.ceil(),
                        x.sqrt(),
                        x.exp(),
                        x.log(),
                        x.log10(),
                        x.sign(),
                        x.round(2),
                        x.round(-1),
                        i.abs(),
                        i.sign(),
                        i.round(-3),
                        x.pow(lit(2.0)),
                        x.pow(col("y")),
                        i.pow(col("j")),
                        i.clip(lit(int64_t{-10}), lit(int64_t{10})),
                        i.clip(col("j"), col("k")),
                        x.clip(lit(-1.0), col("z")),
                        i.sqrt() + lit(1.0),
                        i.clip(lit(0.5), lit(int64_t{3})),
                        when(col("p"), i, col("j")),
                        when(col("p"), lit(int64_t{1}), lit(int64_t{0})),
                        when(col("p"), x, i),
                        when(i < lit(int64_t{0}), lit(true), col("q")),
                        when(x < lit(10.0), lit(1.0), when(x < lit(50.0), lit(int64_t{2}), x)),
                        coalesce({i, col("j")}) + lit(int64_t{1}),
                        coalesce({i, x}),
                        x.fill_null(lit(int64_t{0})) * lit(2.0),
                        i.between(lit(int64_t{-5}), col("k"))}) {
    EXPECT_EQ(check(e, b), Path::Fused) << e.to_string();
  }
  // Floor and ceil of an integer are the integer: no kernel runs.
  auto floor =
      FusedProgram::compile(*detail::ExprAccess::node(i.floor() + lit(int64_t{1})), b.schema());
  ASSERT_TRUE(floor);
  EXPECT_EQ(floor->num_instructions(), 1u);
  // A null branch or text stays with the evaluator.
  for (const Expr& e : {when(col("p"), i, lit(Value{})), coalesce({lit(Value{}), i}),
                        when(col("p"), lit("a"), lit("b")), col("p").abs()}) {
    EXPECT_EQ(FusedProgram::compile(*detail::ExprAccess::node(e), b.schema()), nullptr)
        << e.to_string();
  }
  Batch edge(Schema({{"a", int64()}}), {Column::from(std::vector<int64_t>{1, kMin, kMax})});
  EXPECT_EQ(check(col("a").abs(), edge), Path::Fallback);
  EXPECT_EQ(check(col("a").round(-1), edge), Path::Fallback);  // INT64_MAX rounds up past it
  EXPECT_EQ(check(col("a").sign() * lit(int64_t{2}), edge), Path::Fused);
}

TEST(FusedProgramTest, WhatFallsBack) {
  const Batch& b = batch();
  // Not compiled: bare columns and literals, utf8, UDFs, aggregates, null literals, literals
  // alone, unknown columns, type errors (the evaluator reports those).
  for (const Expr& e :
       {col("i"), col("i").alias("c"), lit(int64_t{1}), col("i").sum(), col("i") + lit(Value{}),
        lit(int64_t{1}) + lit(int64_t{2}), col("nope") + lit(int64_t{1}), col("p") + col("i"),
        col("i").cast(utf8()), col("x").cast(float64())}) {
    EXPECT_EQ(FusedProgram::compile(*detail::ExprAccess::node(e), b.schema()), nullptr)
        << e.to_string();
  }
  // Inputs with nulls go to the evaluator, batch by batch.
  Batch with_nulls(Schema({{"a", int64()}}),
                   {Column::from(std::vector<std::optional<int64_t>>{1, std::nullopt, 3})});
  auto p = FusedProgram::compile(*detail::ExprAccess::node(col("a") + lit(int64_t{1})),
                                 with_nulls.schema());
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->evaluate(with_nulls));
  EXPECT_FALSE(p->evaluate(with_nulls.slice(0, 0)));
  EXPECT_TRUE(p->evaluate(with_nulls.slice(2, 1)));  // the slice without the null
  // A batch whose columns are not the compiled schema's goes to the evaluator too.
  Batch other(Schema({{"a", float64()}}), {Column::from(std::vector<double>{1.0})});
  EXPECT_FALSE(p->evaluate(other));
}

// Random expression trees of a requested type over the batch's columns.
class ExprGen {
 public:
  explicit ExprGen(uint64_t seed) : rng_(seed) {}

  Expr of(TypeId t, int depth) {
    if (depth == 0 || rng_() % 4 == 0) return leaf(t);
    switch (t) {
      case TypeId::Int64:
        return integer(depth);
      case TypeId::Float64:
        return floating(depth);
      default:
        return boolean(depth);
    }
  }

 private:
  Expr leaf(TypeId t) {
    const bool literal = rng_() % 3 == 0;
    switch (t) {
      case TypeId::Int64:
        return literal ? lit(random_int(rng_, true)) : col(pick({"i", "j", "k"}));
      case TypeId::Float64:
        return literal ? lit(random_float(rng_, true)) : col(pick({"x", "y", "z"}));
      default:
        return literal ? lit(bool(rng_() & 1)) : col(pick({"p", "q"}));
    }
  }
  Expr integer(int depth) {
    switch (rng_() % 10) {
      case 0:
        return -of(TypeId::Int64, depth - 1);
      case 1:
        return of(TypeId::Boolean, depth - 1).cast(int64());
      case 6:
        return pick_unary_int(of(TypeId::Int64, depth - 1));
      case 7:
        return of(TypeId::Int64, depth - 1)
            .clip(of(TypeId::Int64, depth - 1), of(TypeId::Int64, depth - 1));
      case 8:
        return when(of(TypeId::Boolean, depth - 1), of(TypeId::Int64, depth - 1),
                    of(TypeId::Int64, depth - 1));
      case 9:
        return coalesce({of(TypeId::Int64, depth - 1), of(TypeId::Int64, depth - 1)});
      default:
        return testref::apply(kArith[rng_() % 5], of(TypeId::Int64, depth - 1),
                              of(TypeId::Int64, depth - 1));
    }
  }
  Expr floating(int depth) {
    switch (rng_() % 10) {
      case 0:
        return of(TypeId::Int64, depth - 1).cast(float64());
      case 1:
        return -of(TypeId::Float64, depth - 1);
      case 5:
        return pick_unary_float(of(rng_() % 2 ? TypeId::Int64 : TypeId::Float64, depth - 1));
      case 6:
        return of(TypeId::Float64, depth - 1)
            .pow(of(rng_() % 2 ? TypeId::Int64 : TypeId::Float64, depth - 1));
      case 7:
        return of(TypeId::Float64, depth - 1)
            .clip(of(TypeId::Int64, depth - 1), of(TypeId::Float64, depth - 1));
      case 8:
        return when(of(TypeId::Boolean, depth - 1), of(TypeId::Float64, depth - 1),
                    of(rng_() % 2 ? TypeId::Int64 : TypeId::Float64, depth - 1));
      case 9:
        return coalesce({of(TypeId::Float64, depth - 1), of(TypeId::Int64, depth - 1)});
      default:
        return testref::apply(kArith[rng_() % 5], of(TypeId::Float64, depth - 1),
                              of(rng_() % 2 ? TypeId::Int64 : TypeId::Float64, depth - 1));
    }
  }
  Expr boolean(int depth) {
    switch (rng_() % 9) {
      case 7:
        return when(of(TypeId::Boolean, depth - 1), of(TypeId::Boolean, depth - 1),
                    of(TypeId::Boolean, depth - 1));
      case 8:
        return coalesce({of(TypeId::Boolean, depth - 1), of(TypeId::Boolean, depth - 1)});
      case 0:
        return !of(TypeId::Boolean, depth - 1);
      case 1:
        return testref::apply(rng_() % 2 ? BinaryOp::And : BinaryOp::Or,
                              of(TypeId::Boolean, depth - 1), of(TypeId::Boolean, depth - 1));
      case 2:
        return of(TypeId::Int64, depth - 1) % lit(random_int(rng_, true)) == lit(int64_t{0});
      case 3:
        return of(rng_() % 2 ? TypeId::Int64 : TypeId::Float64, depth - 1).is_null();
      default: {
        const TypeId t = rng_() % 2 ? TypeId::Int64 : TypeId::Float64;
        return testref::apply(kCompare[rng_() % 6], of(t, depth - 1),
                              of(TypeId::Float64, depth - 1));
      }
    }
  }
  Expr pick_unary_int(const Expr& x) {
    switch (rng_() % 5) {
      case 0:
        return x.abs();
      case 1:
        return x.sign();
      case 2:
        return x.floor();
      case 3:
        return x.round(-int(rng_() % 20));
      default:
        return x.round(int(rng_() % 3));
    }
  }
  // A float function of x (an int64 x is widened first, as the evaluator does).
  Expr pick_unary_float(const Expr& x) {
    switch (rng_() % 9) {
      case 0:
        return x.abs();
      case 1:
        return x.floor();
      case 2:
        return x.ceil();
      case 3:
        return x.sqrt();
      case 4:
        return x.exp();
      case 5:
        return x.log();
      case 6:
        return x.log10();
      case 7:
        return x.sign();
      default:
        return x.round(int(rng_() % 7) - 3);
    }
  }
  std::string pick(std::initializer_list<const char*> names) {
    return *(names.begin() + rng_() % names.size());
  }
  std::mt19937_64 rng_;
};

TEST(FusedProgramTest, RandomTreesMatchEvaluator) {
  ExprGen gen(2024);
  int fused = 0, total = 0;
  for (int r = 0; r < 600; ++r) {
    const TypeId t = std::array{TypeId::Int64, TypeId::Float64, TypeId::Boolean}[r % 3];
    const Expr e = gen.of(t, 1 + r % 4);
    const Path path = check(e, r % 2 ? small() : batch());
    if (::testing::Test::HasFatalFailure()) return;
    fused += path == Path::Fused;
    ++total;
  }
  // Most trees take the fast path; the rest (zero divisors, overflows, literal-only subtrees)
  // fall back.
  EXPECT_GT(fused, total / 3);
}

TEST(FusedProgramTest, MaskMatchesEvaluatedColumn) {
  for (int64_t rows : {int64_t{1}, int64_t{63}, int64_t{1024}, int64_t{1030}, kRows}) {
    const Batch b = make_batch(rows, uint64_t(rows));
    for (const Expr& e : {col("i") % lit(int64_t{3}) == lit(int64_t{0}), col("x") < col("y"),
                          col("p") || col("i") > lit(int64_t{0})}) {
      auto p = FusedProgram::compile(*detail::ExprAccess::node(e), b.schema());
      ASSERT_TRUE(p);
      const Column want = evaluate(*detail::ExprAccess::node(e), b);
      std::vector<uint8_t> bits(static_cast<size_t>((rows + 7) / 8), 0xAB);
      const std::optional<int64_t> ones = p->evaluate_mask(b, bits.data());
      ASSERT_TRUE(ones) << e.to_string();
      int64_t want_ones = 0;
      for (int64_t r = 0; r < rows; ++r) {
        want_ones += want.value<bool>(r);
        ASSERT_EQ(get_bit(bits.data(), r), want.value<bool>(r)) << e.to_string() << " row " << r;
      }
      for (int64_t r = rows; r < int64_t(bits.size()) * 8; ++r)
        ASSERT_FALSE(get_bit(bits.data(), r));
      EXPECT_EQ(*ones, want_ones);
    }
  }
  auto numeric =
      FusedProgram::compile(*detail::ExprAccess::node(col("i") + col("j")), batch().schema());
  std::vector<uint8_t> bits(static_cast<size_t>(kRows));
  EXPECT_FALSE(numeric->evaluate_mask(batch(), bits.data()));  // not a predicate
}

TEST(FusedProgramTest, ConcurrentEvaluationsShareOneProgram) {
  auto p = FusedProgram::compile(
      *detail::ExprAccess::node((col("i") * lit(int64_t{3}) + col("k")) % lit(int64_t{7}) ==
                                lit(int64_t{0})),
      small().schema());
  ASSERT_TRUE(p);
  const Column want = *p->evaluate(small());
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < 20; ++r) {
        const Column got = *p->evaluate(small());
        for (int64_t i = 0; i < got.size(); ++i)
          mismatches += got.value<bool>(i) != want.value<bool>(i);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace ember
