// Typing rules of operators and casts, and the wording of their type errors.
#include "expr/type_rules.h"

#include "ember/error.h"
#include "expr/expr_text.h"

namespace ember {

namespace {
bool is_castable_id(TypeId id) {
  return id == TypeId::Boolean || id == TypeId::Int64 || id == TypeId::Float64 ||
         id == TypeId::Utf8 || id == TypeId::Int32 || id == TypeId::Float32;
}
// Durations are int64 microseconds: timestamp +- duration is a timestamp, duration + timestamp
// too, and timestamp - timestamp the duration between them.
std::optional<DataType> timestamp_arithmetic_type(BinaryOp op, const DataType& a,
                                                  const DataType& b) {
  const bool ta = a.id() == TypeId::Timestamp, tb = b.id() == TypeId::Timestamp;
  if (ta && tb) return op == BinaryOp::Sub ? std::optional(int64()) : std::nullopt;
  const DataType& other = ta ? b : a;
  if (!other.is_integer()) return std::nullopt;
  if (op == BinaryOp::Add || (op == BinaryOp::Sub && ta)) return timestamp_us();
  return std::nullopt;
}

// Dates count days: date +- int is a date, int + date too, and date - date the days between.
std::optional<DataType> date_arithmetic_type(BinaryOp op, const DataType& a, const DataType& b) {
  const bool da = a.id() == TypeId::Date32, db = b.id() == TypeId::Date32;
  if (da && db) return op == BinaryOp::Sub ? std::optional(int64()) : std::nullopt;
  const DataType& other = da ? b : a;
  if (!other.is_integer()) return std::nullopt;
  if (op == BinaryOp::Add || (op == BinaryOp::Sub && da)) return date32();
  return std::nullopt;
}

}  // namespace

OpClass op_class(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Mod:
      return OpClass::Arithmetic;
    case BinaryOp::And:
    case BinaryOp::Or:
      return OpClass::Logical;
    default:
      return OpClass::Comparison;
  }
}

std::optional<DataType> binary_result_type(BinaryOp op, const DataType& l, const DataType& r) {
  const bool l_null = l.id() == TypeId::Null;
  const bool r_null = r.id() == TypeId::Null;
  if (l_null && r_null) return DataType();
  // A null literal adopts the other operand's type, then the ordinary rules apply.
  const DataType& a = l_null ? r : l;
  const DataType& b = r_null ? l : r;
  switch (op_class(op)) {
    case OpClass::Arithmetic:
      if (a.id() == TypeId::Timestamp || b.id() == TypeId::Timestamp) {
        return timestamp_arithmetic_type(op, a, b);
      }
      if (a.id() == TypeId::Date32 || b.id() == TypeId::Date32) {
        return date_arithmetic_type(op, a, b);
      }
      // int32 and float32 widen: the result is int64 or float64.
      if (!a.is_numeric() || !b.is_numeric()) return std::nullopt;
      return a.is_integer() && b.is_integer() ? int64() : float64();
    case OpClass::Logical:
      if (a.id() != TypeId::Boolean || b.id() != TypeId::Boolean) return std::nullopt;
      return boolean();
    case OpClass::Comparison:
      if (a.is_numeric() && b.is_numeric()) return boolean();
      if (a.id() == b.id() &&
          (a.id() == TypeId::Utf8 || a.id() == TypeId::Boolean || a.id() == TypeId::Binary ||
           a.id() == TypeId::Timestamp || a.id() == TypeId::Date32)) {
        return boolean();
      }
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<DataType> unary_result_type(UnaryOp op, const DataType& t) {
  if (t.id() == TypeId::Null) return DataType();
  if (op == UnaryOp::Not) {
    if (t.id() == TypeId::Boolean) return t;
  } else if (t.is_numeric()) {
    return t.is_integer() ? int64() : float64();
  }
  return std::nullopt;
}

bool can_cast(const DataType& from, const DataType& to) {
  if (from.id() == TypeId::Null || from == to) return true;
  if (from.is_list() && to.is_list()) return from.element() == to.element();
  const TypeId f = from.id(), t = to.id();
  if (t == TypeId::Date32) return f == TypeId::Utf8 || f == TypeId::Timestamp;
  if (f == TypeId::Date32) return t == TypeId::Utf8 || t == TypeId::Timestamp;
  if (t == TypeId::Timestamp) return f == TypeId::Int64 || f == TypeId::Utf8;
  if (f == TypeId::Timestamp) return t == TypeId::Int64 || t == TypeId::Utf8;
  if (t == TypeId::Binary) return f == TypeId::Utf8;
  return is_castable_id(to.id()) && is_castable_id(from.id());
}

void throw_binary_type_error(const ExprNode& e, const DataType& l, const DataType& r) {
  throw TypeError(std::string("cannot apply '") + to_string(e.binary) + "' to " + l.to_string() +
                  " and " + r.to_string() + " in " + to_string(e));
}

void throw_unary_type_error(const ExprNode& e, const DataType& t) {
  throw TypeError(std::string("cannot apply '") + (e.unary == UnaryOp::Not ? "!" : "-") + "' to " +
                  t.to_string() + " in " + to_string(e));
}

void throw_cast_type_error(const ExprNode& e, const DataType& from) {
  throw TypeError(
      "cannot cast " + from.to_string() + " to " + e.cast_to.to_string() + " in " + to_string(e) +
      "; casts go between bool, int32, int64, float32, float64 and utf8, "
      "int64/utf8 and timestamp, utf8/timestamp and date32, utf8 to binary, and lists of "
      "one element type");
}

}  // namespace ember
