// FusedProgram::compile: walks an expression tree once, typing it against the input schema and
// emitting one kernel call per node into registers that are reused as soon as they are dead.
#include <algorithm>

#include "ember/error.h"
#include "expr/function_types.h"
#include "expr/fused_program.h"
#include "expr/type_rules.h"

namespace ember {

namespace {
using Code = FusedInstr::Code;
using Slot = std::optional<FusedSlot>;  // nullopt: the fast path does not cover the node
}  // namespace

class FusedCompiler {
 public:
  FusedCompiler(const Schema& schema, FusedProgram& program) : schema_(schema), p_(program) {}

  Slot node(const ExprNode& e) {
    switch (e.kind) {
      case ExprKind::Column:
        return column(e.name);
      case ExprKind::Literal:
        return literal(e.literal);
      case ExprKind::Alias:
        return e.children.size() == 1 ? node(*e.children[0]) : std::nullopt;
      case ExprKind::Binary:
        return e.children.size() == 2 ? binary(e) : std::nullopt;
      case ExprKind::Unary:
        return e.children.size() == 1 ? unary(e) : std::nullopt;
      case ExprKind::Cast:
        return e.children.size() == 1 ? cast(e) : std::nullopt;
      case ExprKind::IsNull:
        return e.children.size() == 1 ? is_null(*e.children[0]) : std::nullopt;
      case ExprKind::Function:
        return function(e);
      default:
        return std::nullopt;  // UDF calls, aggregates and kinds added later: the evaluator
    }
  }

 private:
  Slot column(const std::string& name) {
    const int index = schema_.index_of(name);
    if (index < 0) return std::nullopt;
    const TypeId type = schema_.field(index).type.id();
    if (type != TypeId::Int64 && type != TypeId::Float64 && type != TypeId::Boolean) {
      return std::nullopt;
    }
    FusedSlot s;
    s.kind = FusedSlot::Kind::Column;
    s.type = type;
    s.index = input_of(index, name, type);
    if (type != TypeId::Boolean) return s;
    // Bits are unpacked to bytes once per chunk, so every bool kernel works on bytes.
    FusedInstr in;
    in.code = Code::LoadBits;
    in.a = s;
    return emit(in, TypeId::Boolean);
  }

  int input_of(int column, const std::string& name, TypeId type) {
    for (size_t k = 0; k < p_.inputs_.size(); ++k) {
      if (p_.inputs_[k].column == column) return static_cast<int>(k);
    }
    p_.inputs_.push_back(FusedInput{column, name, type});
    return static_cast<int>(p_.inputs_.size() - 1);
  }

  static Slot literal(const Value& v) {
    FusedSlot s;
    s.kind = FusedSlot::Kind::Scalar;
    if (auto* i = std::get_if<int64_t>(&v)) {
      s.type = TypeId::Int64;
      s.i64 = *i;
    } else if (auto* d = std::get_if<double>(&v)) {
      s.type = TypeId::Float64;
      s.f64 = *d;
    } else if (auto* b = std::get_if<bool>(&v)) {
      s.type = TypeId::Boolean;
      s.u8 = *b ? 1 : 0;
    } else {
      return std::nullopt;  // null and utf8 literals
    }
    return s;
  }

  Slot binary(const ExprNode& e) {
    if (Slot s = divisibility(e)) return s;
    Slot a = node(*e.children[0]);
    if (!a) return std::nullopt;
    Slot b = node(*e.children[1]);
    if (!b) return std::nullopt;
    // Operations on literals alone are left to the evaluator (it materialises one side).
    if (is_scalar(*a) && is_scalar(*b)) return std::nullopt;
    const auto type = binary_result_type(e.binary, DataType(a->type), DataType(b->type));
    if (!type) return std::nullopt;
    switch (op_class(e.binary)) {
      case OpClass::Arithmetic:
        return arithmetic(e.binary, *a, *b);
      case OpClass::Comparison:
        return comparison(e.binary, *a, *b);
      case OpClass::Logical:
        return binary_instr(Code::Logic, e.binary, *a, *b, TypeId::Boolean);
    }
    return std::nullopt;
  }

  Slot arithmetic(BinaryOp op, FusedSlot a, FusedSlot b) {
    const bool divides = op == BinaryOp::Div || op == BinaryOp::Mod;
    if (a.type == TypeId::Int64 && b.type == TypeId::Int64) {
      if (divides && is_scalar(b)) {
        if (b.i64 == 0) return std::nullopt;  // every row is null: the evaluator's case
        FusedInstr in;
        in.code = Code::DivideByScalar;
        in.op = op;
        in.a = a;
        in.divisor = b.i64;
        return emit(in, TypeId::Int64);
      }
      if (std::optional<FusedSlot> s = affine(op, a, b)) return s;
      return binary_instr(Code::ArithI64, op, a, b, TypeId::Int64);
    }
    Slot fa = to_float(a);
    if (!fa) return std::nullopt;
    Slot fb = to_float(b);
    if (!fb) return std::nullopt;
    // float % 0 is null for every row; float / 0 follows IEEE.
    if (op == BinaryOp::Mod && is_scalar(*fb) && fb->f64 == 0) return std::nullopt;
    return binary_instr(Code::ArithF64, op, *fa, *fb, TypeId::Float64);
  }

  // `x * m + c`, `x * m - c`, `c + x * m` and `c - x * m` (int64, m and c literals): the
  // multiply just emitted becomes one multiply-add pass, so the product never goes through a
  // register. Wrapping arithmetic makes c - x*m equal to c + x*(-m).
  Slot affine(BinaryOp op, const FusedSlot& a, const FusedSlot& b) {
    if ((op != BinaryOp::Add && op != BinaryOp::Sub) || p_.code_.empty()) return std::nullopt;
    const bool scalar_first = is_scalar(a);
    const FusedSlot& product = scalar_first ? b : a;
    const FusedSlot& constant = scalar_first ? a : b;
    if (!is_scalar(constant) || product.kind != FusedSlot::Kind::Register) return std::nullopt;
    FusedInstr& mul = p_.code_.back();
    if (mul.code != Code::ArithI64 || mul.op != BinaryOp::Mul || mul.dst != product.index ||
        mul.shape == fused::Shape::VecVec) {
      return std::nullopt;
    }
    const bool scale_first = mul.shape == fused::Shape::ScalarVec;
    int64_t scale = scale_first ? mul.a.i64 : mul.b.i64;
    int64_t offset = constant.i64;
    if (op == BinaryOp::Sub && !scalar_first) offset = int64_t(uint64_t(0) - uint64_t(offset));
    if (op == BinaryOp::Sub && scalar_first) scale = int64_t(uint64_t(0) - uint64_t(scale));
    mul.code = Code::AffineI64;
    mul.a = scale_first ? mul.b : mul.a;
    mul.b = FusedSlot{FusedSlot::Kind::Scalar};
    mul.scale = scale;
    mul.offset = offset;
    return product;
  }

  Slot comparison(BinaryOp op, FusedSlot a, FusedSlot b) {
    if (a.type == TypeId::Boolean) return binary_instr(Code::CompareU8, op, a, b, TypeId::Boolean);
    if (a.type == TypeId::Int64 && b.type == TypeId::Int64) {
      return binary_instr(Code::CompareI64, op, a, b, TypeId::Boolean);
    }
    Slot fa = to_float(a);
    if (!fa) return std::nullopt;
    Slot fb = to_float(b);
    if (!fb) return std::nullopt;
    return binary_instr(Code::CompareF64, op, *fa, *fb, TypeId::Boolean);
  }

  // `x % d == 0` and `x % d != 0` (either side) with a non-zero int64 literal d: one multiply
  // and a compare per row instead of a division.
  Slot divisibility(const ExprNode& e) {
    if (e.binary != BinaryOp::Eq && e.binary != BinaryOp::Ne) return std::nullopt;
    const ExprNode* mod = e.children[0].get();
    const ExprNode* zero = e.children[1].get();
    if (is_int_literal(*mod, 0)) std::swap(mod, zero);
    if (!is_int_literal(*zero, 0)) return std::nullopt;
    while (mod->kind == ExprKind::Alias && mod->children.size() == 1) mod = mod->children[0].get();
    if (mod->kind != ExprKind::Binary || mod->binary != BinaryOp::Mod || mod->children.size() != 2)
      return std::nullopt;
    const ExprNode* divisor = mod->children[1].get();
    while (divisor->kind == ExprKind::Alias && divisor->children.size() == 1)
      divisor = divisor->children[0].get();
    if (divisor->kind != ExprKind::Literal) return std::nullopt;
    const auto* d = std::get_if<int64_t>(&divisor->literal);
    if (!d || *d == 0) return std::nullopt;
    const Checkpoint saved = checkpoint();
    Slot x = node(*mod->children[0]);
    if (!x || x->type != TypeId::Int64 || is_scalar(*x)) {
      rollback(saved);  // not the int64 case: the comparison compiles the ordinary way
      return std::nullopt;
    }
    FusedInstr in;
    in.code = Code::Divisible;
    in.a = *x;
    in.test = fused::DivisibilityTest::of(*d);
    in.negate = e.binary == BinaryOp::Ne;
    return emit(in, TypeId::Boolean);
  }

  static bool is_int_literal(const ExprNode& e, int64_t v) {
    const ExprNode* n = &e;
    while (n->kind == ExprKind::Alias && n->children.size() == 1) n = n->children[0].get();
    const auto* i = n->kind == ExprKind::Literal ? std::get_if<int64_t>(&n->literal) : nullptr;
    return i && *i == v;
  }

  Slot unary(const ExprNode& e) {
    Slot a = node(*e.children[0]);
    if (!a || is_scalar(*a)) return std::nullopt;
    FusedInstr in;
    in.a = *a;
    if (e.unary == UnaryOp::Not) {
      if (a->type != TypeId::Boolean) return std::nullopt;
      in.code = Code::Not;
    } else if (a->type == TypeId::Int64) {
      in.code = Code::NegateI64;
    } else if (a->type == TypeId::Float64) {
      in.code = Code::NegateF64;
    } else {
      return std::nullopt;
    }
    return emit(in, a->type);
  }

  Slot cast(const ExprNode& e) {
    Slot a = node(*e.children[0]);
    const TypeId to = e.cast_to.id();
    if (!a || (to != TypeId::Int64 && to != TypeId::Float64 && to != TypeId::Boolean)) {
      return std::nullopt;
    }
    if (a->type == to) return a;  // casting to the same type returns the column itself
    if (is_scalar(*a)) return std::nullopt;
    FusedInstr in;
    in.a = *a;
    switch (a->type) {
      case TypeId::Int64:
        in.code = to == TypeId::Float64 ? Code::CastI64F64 : Code::CastI64U8;
        break;
      case TypeId::Float64:
        in.code = to == TypeId::Int64 ? Code::CastF64I64 : Code::CastF64U8;
        break;
      default:
        in.code = to == TypeId::Int64 ? Code::CastU8I64 : Code::CastU8F64;
        break;
    }
    return emit(in, to);
  }

  // Rows reaching a program have no nulls, and any row that would become null sends the whole
  // batch to the evaluator, so is_null is false wherever the program finishes. The operand's
  // code still runs for exactly that check.
  Slot is_null(const ExprNode& child) {
    Slot a = node(child);
    if (!a) return std::nullopt;
    FusedInstr in;
    in.code = Code::AllFalse;
    in.a = *a;
    return emit(in, TypeId::Boolean);
  }

  // The expression library's functions that are one loop over numbers or bools: math, clip,
  // when() and coalesce(). Others (text, lists, dates, hashing) are left to the evaluator.
  Slot function(const ExprNode& e) {
    if (e.function == FunctionId::When && e.children.size() == 3) return when(e);
    if (e.function == FunctionId::Coalesce && !e.children.empty()) return coalesce(e);
    if (e.function >= FunctionId::Abs && e.function <= FunctionId::Sign) return math(e);
    return std::nullopt;
  }

  // The type the evaluator gives `e` over these argument types; nullopt when it is not one the
  // kernels cover or the evaluator would reject the call (it reports that, not this compiler).
  static std::optional<TypeId> result_of(const ExprNode& e, const std::vector<FusedSlot>& args) {
    std::vector<DataType> types;
    for (const FusedSlot& a : args) types.emplace_back(a.type);
    try {
      const TypeId t = function_result_type(e, types, e).id();
      if (t == TypeId::Int64 || t == TypeId::Float64 || t == TypeId::Boolean) return t;
    } catch (const Error&) {
    }
    return std::nullopt;
  }

  // `s` as the result type `t` (int64 widens to float64; other pairs are not needed).
  Slot as_type(const FusedSlot& s, TypeId t) {
    if (s.type == t) return s;
    if (t == TypeId::Float64) return to_float(s);
    return std::nullopt;
  }

  Slot math(const ExprNode& e) {
    std::vector<FusedSlot> args;
    for (const ExprPtr& c : e.children) {
      Slot a = node(*c);
      if (!a) return std::nullopt;
      args.push_back(*a);
    }
    if (args.empty() || is_scalar(args[0])) return std::nullopt;
    const std::optional<TypeId> type = result_of(e, args);
    if (!type || *type == TypeId::Boolean) return std::nullopt;
    const bool float_args = *type == TypeId::Float64 || e.function == FunctionId::Pow;
    for (FusedSlot& a : args) {
      Slot cast = as_type(a, float_args ? TypeId::Float64 : TypeId::Int64);
      if (!cast) return std::nullopt;
      a = *cast;
    }
    const int digits = e.function == FunctionId::Round && !e.params.empty()
                           ? int(std::get<int64_t>(e.params[0]))
                           : 0;
    if (e.function == FunctionId::Pow && args.size() == 2) {
      return binary_instr(Code::PowF64, BinaryOp::Add, args[0], args[1], TypeId::Float64);
    }
    if (e.function == FunctionId::Clip && args.size() == 3) {
      const Code code = float_args ? Code::MinMaxF64 : Code::MinMaxI64;
      const TypeId t = float_args ? TypeId::Float64 : TypeId::Int64;
      FusedSlot low = min_max(code, true, args[0], args[1], t);
      return min_max(code, false, low, args[2], t);
    }
    if (args.size() != 1) return std::nullopt;
    FusedInstr in;
    in.a = args[0];
    in.function = e.function;
    in.digits = digits;
    if (float_args) {
      in.code = Code::MathF64;
      return emit(in, TypeId::Float64);
    }
    // Floor, Ceil and Round to whole or finer digits leave an integer as it is.
    if (e.function == FunctionId::Floor || e.function == FunctionId::Ceil ||
        (e.function == FunctionId::Round && digits >= 0)) {
      return args[0];
    }
    in.code = Code::MathI64;
    return emit(in, TypeId::Int64);
  }

  FusedSlot min_max(Code code, bool max, const FusedSlot& a, const FusedSlot& b, TypeId type) {
    FusedInstr in;
    in.code = code;
    in.max = max;
    in.a = a;
    in.b = b;
    in.shape = is_scalar(b) ? fused::Shape::VecScalar : fused::Shape::VecVec;
    return emit(in, type);
  }

  // when(cond, then, otherwise): a chain compiles to one select per link, innermost first.
  Slot when(const ExprNode& e) {
    Slot cond = node(*e.children[0]);
    if (!cond || cond->type != TypeId::Boolean || is_scalar(*cond)) return std::nullopt;
    Slot then = node(*e.children[1]);
    if (!then) return std::nullopt;
    Slot otherwise = node(*e.children[2]);
    if (!otherwise) return std::nullopt;
    const std::optional<TypeId> type = result_of(e, {*cond, *then, *otherwise});
    if (!type) return std::nullopt;
    then = as_type(*then, *type);
    otherwise = as_type(*otherwise, *type);
    if (!then || !otherwise) return std::nullopt;
    FusedInstr in;
    in.code = *type == TypeId::Int64     ? Code::SelectI64
              : *type == TypeId::Float64 ? Code::SelectF64
                                         : Code::SelectU8;
    in.cond = *cond;
    in.a = *then;
    in.b = *otherwise;
    return emit(in, *type);
  }

  // coalesce(a, ...): rows reaching a program have no nulls and a row that would become null
  // sends the batch to the evaluator, so wherever the program finishes the first argument is
  // the result. The others are compiled only to learn their types, then dropped.
  Slot coalesce(const ExprNode& e) {
    Slot first = node(*e.children[0]);
    if (!first) return std::nullopt;
    std::vector<FusedSlot> args{*first};
    const Checkpoint saved = checkpoint();
    for (size_t k = 1; k < e.children.size(); ++k) {
      Slot s = node(*e.children[k]);
      if (!s) return std::nullopt;
      args.push_back(*s);
    }
    rollback(saved);
    const std::optional<TypeId> type = result_of(e, args);
    if (!type) return std::nullopt;
    return as_type(*first, *type);
  }

  Slot to_float(FusedSlot s) {
    if (s.type == TypeId::Float64) return s;
    if (s.type != TypeId::Int64) return std::nullopt;
    if (is_scalar(s)) {
      s.type = TypeId::Float64;
      s.f64 = static_cast<double>(s.i64);
      return s;
    }
    FusedInstr in;
    in.code = Code::CastI64F64;
    in.a = s;
    return emit(in, TypeId::Float64);
  }

  Slot binary_instr(Code code, BinaryOp op, const FusedSlot& a, const FusedSlot& b, TypeId type) {
    FusedInstr in;
    in.code = code;
    in.op = op;
    in.a = a;
    in.b = b;
    in.shape = is_scalar(a)   ? fused::Shape::ScalarVec
               : is_scalar(b) ? fused::Shape::VecScalar
                              : fused::Shape::VecVec;
    return emit(in, type);
  }

  // Appends `in` writing a fresh register; its operands' registers become free afterwards (the
  // destination is never one of them: kernels assume outputs do not overlap inputs).
  FusedSlot emit(FusedInstr in, TypeId type) {
    FusedSlot dst;
    dst.kind = FusedSlot::Kind::Register;
    dst.type = type;
    dst.index = allocate();
    in.dst = dst.index;
    release(in.a);
    release(in.b);
    release(in.cond);
    p_.code_.push_back(in);
    return dst;
  }

  int allocate() {
    if (free_.empty()) return p_.registers_++;
    const int r = free_.back();
    free_.pop_back();
    return r;
  }
  void release(const FusedSlot& s) {
    if (s.kind != FusedSlot::Kind::Register) return;
    if (std::find(free_.begin(), free_.end(), s.index) == free_.end()) free_.push_back(s.index);
  }
  static bool is_scalar(const FusedSlot& s) { return s.kind == FusedSlot::Kind::Scalar; }

  struct Checkpoint {
    size_t code, inputs;
    int registers;
    std::vector<int> free;
  };
  Checkpoint checkpoint() const {
    return {p_.code_.size(), p_.inputs_.size(), p_.registers_, free_};
  }
  void rollback(const Checkpoint& c) {
    p_.code_.resize(c.code);
    p_.inputs_.resize(c.inputs);
    p_.registers_ = c.registers;
    free_ = c.free;
  }

  const Schema& schema_;
  FusedProgram& p_;
  std::vector<int> free_;
};

std::shared_ptr<const FusedProgram> FusedProgram::compile(const ExprNode& e, const Schema& input) {
  auto p = std::make_shared<FusedProgram>();
  FusedCompiler compiler(input, *p);
  const Slot result = compiler.node(e);
  // A bare column or literal is already as cheap as it gets in the evaluator.
  if (!result || result->kind != FusedSlot::Kind::Register || p->code_.empty()) return nullptr;
  p->result_type_ = result->type;
  p->result_register_ = result->index;
  if (result->type != TypeId::Boolean) {
    // The last instruction wrote the result: let it write into the output column instead.
    p->code_.back().dst = FusedInstr::kOutput;
  }
  return p;
}

}  // namespace ember
