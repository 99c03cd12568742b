// A row-at-a-time reference evaluator the vectorised kernels are checked against.
#pragma once

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ember/batch.h"
#include "expr/expr_node.h"

namespace ember::testref {

using Rows = std::vector<Value>;

/// The expression `a op b`, built through the public operators.
inline Expr apply(BinaryOp op, const Expr& a, const Expr& b) {
  switch (op) {
    case BinaryOp::Add:
      return a + b;
    case BinaryOp::Sub:
      return a - b;
    case BinaryOp::Mul:
      return a * b;
    case BinaryOp::Div:
      return a / b;
    case BinaryOp::Mod:
      return a % b;
    case BinaryOp::Eq:
      return a == b;
    case BinaryOp::Ne:
      return a != b;
    case BinaryOp::Lt:
      return a < b;
    case BinaryOp::Le:
      return a <= b;
    case BinaryOp::Gt:
      return a > b;
    case BinaryOp::Ge:
      return a >= b;
    case BinaryOp::And:
      return a && b;
    default:
      return a || b;
  }
}

inline Rows rows_of(const Column& c) {
  Rows out;
  for (int64_t i = 0; i < c.size(); ++i) out.push_back(c.get(i));
  return out;
}

inline bool same(const Value& a, const Value& b) {
  if (std::holds_alternative<double>(a) && std::holds_alternative<double>(b)) {
    const double x = std::get<double>(a), y = std::get<double>(b);
    return (std::isnan(x) && std::isnan(y)) || x == y;
  }
  return a == b;
}

inline double as_double(const Value& v) {
  return std::holds_alternative<int64_t>(v) ? double(std::get<int64_t>(v)) : std::get<double>(v);
}

template <class T>
bool compare_values(BinaryOp op, const T& x, const T& y) {
  switch (op) {
    case BinaryOp::Eq:
      return x == y;
    case BinaryOp::Ne:
      return x != y;
    case BinaryOp::Lt:
      return x < y;
    case BinaryOp::Le:
      return x <= y;
    case BinaryOp::Gt:
      return x > y;
    default:
      return x >= y;
  }
}

inline Value int_arith(BinaryOp op, int64_t x, int64_t y) {
  switch (op) {
    // A result that does not fit in int64 is null.
    case BinaryOp::Add: {
      int64_t r;
      return __builtin_add_overflow(x, y, &r) ? Value{} : Value{r};
    }
    case BinaryOp::Sub: {
      int64_t r;
      return __builtin_sub_overflow(x, y, &r) ? Value{} : Value{r};
    }
    case BinaryOp::Mul: {
      int64_t r;
      return __builtin_mul_overflow(x, y, &r) ? Value{} : Value{r};
    }
    case BinaryOp::Div:
      if (y == 0) return Value{};
      if (y == -1) return x == std::numeric_limits<int64_t>::min() ? Value{} : Value{-x};
      return x / y;
    default:
      if (y == 0) return Value{};
      if (y == -1) return int64_t{0};
      return x % y;
  }
}

inline Value float_arith(BinaryOp op, double x, double y) {
  switch (op) {
    case BinaryOp::Add:
      return x + y;
    case BinaryOp::Sub:
      return x - y;
    case BinaryOp::Mul:
      return x * y;
    case BinaryOp::Div:
      return x / y;
    default:
      return y == 0 ? Value{} : Value{std::fmod(x, y)};
  }
}

/// One row of `a op b`, following the documented semantics.
inline Value binary(BinaryOp op, const Value& a, const Value& b) {
  const bool an = a.index() == 0, bn = b.index() == 0;
  if (op == BinaryOp::And || op == BinaryOp::Or) {
    const bool dominant = op == BinaryOp::Or;  // true decides ||, false decides &&
    if ((!an && std::get<bool>(a) == dominant) || (!bn && std::get<bool>(b) == dominant)) {
      return dominant;
    }
    if (an || bn) return Value{};
    return !dominant;
  }
  if (an || bn) return Value{};
  const bool arith = op <= BinaryOp::Mod;
  if (std::holds_alternative<std::string>(a)) {
    return compare_values(op, std::get<std::string>(a), std::get<std::string>(b));
  }
  if (std::holds_alternative<bool>(a))
    return compare_values(op, std::get<bool>(a), std::get<bool>(b));
  if (std::holds_alternative<int64_t>(a) && std::holds_alternative<int64_t>(b)) {
    const int64_t x = std::get<int64_t>(a), y = std::get<int64_t>(b);
    return arith ? int_arith(op, x, y) : Value{compare_values(op, x, y)};
  }
  const double x = as_double(a), y = as_double(b);
  return arith ? float_arith(op, x, y) : Value{compare_values(op, x, y)};
}

/// Random rows of a type with ~15% nulls; ints include 0, -1 and INT64_MIN.
inline Rows random_rows(TypeId t, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Rows out;
  for (int64_t i = 0; i < n; ++i) {
    if (rng() % 100 < 15) {
      out.emplace_back();
      continue;
    }
    switch (t) {
      case TypeId::Boolean:
        out.emplace_back(bool(rng() & 1));
        break;
      case TypeId::Int64: {
        const uint32_t r = rng() % 50;
        if (r == 0)
          out.emplace_back(std::numeric_limits<int64_t>::min());
        else if (r == 1)
          out.emplace_back(int64_t{-1});
        else
          out.emplace_back(int64_t(rng() % 21) - 10);
        break;
      }
      case TypeId::Float64:
        out.emplace_back(double(int(rng() % 9) - 4) * 0.75);
        break;
      default: {
        std::string s(rng() % 4, 'a');
        for (char& c : s) c = char("ab\xC3z"[rng() % 4]);
        out.emplace_back(std::move(s));
      }
    }
  }
  return out;
}

inline Column column_of(TypeId t, const Rows& rows) {
  ColumnBuilder b{DataType(t)};
  for (const Value& v : rows) b.append_value(v);
  return b.finish();
}

}  // namespace ember::testref
