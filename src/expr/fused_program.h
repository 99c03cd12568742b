// Row expressions compiled once per operator into a flat program of chunk kernels: evaluated a
// chunk of rows at a time through L1-resident scratch registers, with no allocation per node.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/batch.h"
#include "expr/expr_node.h"
#include "expr/fused_kernels.h"

namespace ember {

/// Where an instruction operand lives: an input column, a scratch register, or a literal.
struct FusedSlot {
  enum class Kind : uint8_t { Column, Register, Scalar };
  Kind kind = Kind::Register;
  TypeId type = TypeId::Int64;  ///< Int64, Float64 or Boolean (booleans as 0/1 bytes)
  int index = 0;                ///< Column: index into FusedProgram inputs; Register: number
  int64_t i64 = 0;              ///< Scalar Int64
  double f64 = 0;               ///< Scalar Float64
  uint8_t u8 = 0;               ///< Scalar Boolean
};

/// One kernel call of a program.
struct FusedInstr {
  enum class Code : uint8_t {
    ArithI64,
    AffineI64,
    ArithF64,
    DivideByScalar,
    Divisible,
    CompareI64,
    CompareF64,
    CompareU8,
    Logic,
    Not,
    NegateI64,
    NegateF64,
    CastI64F64,
    CastU8I64,
    CastU8F64,
    CastI64U8,
    CastF64U8,
    CastF64I64,
    LoadBits,
    AllFalse,
    MathI64,    ///< function(a) for Abs, Round, Sign
    MathF64,    ///< function(a) for the one-argument float functions
    PowF64,     ///< pow(a, b)
    MinMaxI64,  ///< max or min of a and b (clip)
    MinMaxF64,
    SelectI64,  ///< when(): cond ? a : b
    SelectF64,
    SelectU8
  };
  /// dst of the last instruction when it writes the program's fixed-width result in place.
  static constexpr int kOutput = -1;

  Code code = Code::ArithI64;
  BinaryOp op = BinaryOp::Add;
  fused::Shape shape = fused::Shape::VecVec;
  FusedSlot a;
  FusedSlot b{FusedSlot::Kind::Scalar};     ///< unused by unary kernels
  int dst = 0;                              ///< register, or kOutput
  int64_t divisor = 0;                      ///< DivideByScalar (op Div or Mod)
  int64_t scale = 1, offset = 0;            ///< AffineI64: a * scale + offset
  fused::DivisibilityTest test;             ///< Divisible
  bool negate = false;                      ///< Divisible: `% d != 0`
  FunctionId function = FunctionId::Abs;    ///< MathI64, MathF64
  int digits = 0;                           ///< MathI64, MathF64: Round's digits
  bool max = false;                         ///< MinMax: max (else min)
  FusedSlot cond{FusedSlot::Kind::Scalar};  ///< Select: the bool condition
};

/// An input column a program reads, checked against each batch before the fast path runs.
struct FusedInput {
  int column = 0;  ///< index in the batch
  std::string name;
  TypeId type = TypeId::Int64;
};

/// An input column's data in one batch: values (offset applied) or, for bool, the bitmap and
/// its bit offset.
struct FusedColumnView {
  const uint8_t* data = nullptr;
  int64_t bit_offset = 0;
};

/// A row expression compiled against one input schema. Integer and float arithmetic, the
/// comparisons, && || !, negation, is_null, the casts between bool, int64 and float64, the math
/// functions, when() and coalesce() over those types are covered; results are identical to
/// evaluate() (same wrap-around, same IEEE rules). Immutable once compiled: evaluate() may run on
/// many threads at once (each thread has its own scratch registers).
class FusedProgram {
 public:
  /// Rows per chunk: a register of int64s is 8 KiB, so a program's registers stay in L1.
  static constexpr int64_t kChunkRows = 1024;

  /// Compiles `e` for batches of schema `input`, or returns null when the fast path does not
  /// cover it (utf8, UDF calls, aggregates, null literals, a literal zero divisor, operations on
  /// literals alone, a bare column or literal, or an expression the evaluator rejects). Never
  /// throws for a bad expression: those are left to the evaluator, which reports them.
  static std::shared_ptr<const FusedProgram> compile(const ExprNode& e, const Schema& input);

  /// evaluate(e, input) through the compiled kernels, or nullopt when this batch needs the
  /// evaluator: an input column holds nulls or differs from the compiled schema, a row's result
  /// would be null (a zero divisor, a float too large for int64), or the batch is empty.
  std::optional<Column> evaluate(const Batch& input) const;

  /// For a bool program, what a filter needs: the result as a bitmap written to `bits`
  /// (bytes_for(num_rows) bytes, bits past the end 0) and the number of true rows. nullopt in
  /// the cases evaluate() gives nullopt, or when the result type is not bool.
  std::optional<int64_t> evaluate_mask(const Batch& input, uint8_t* bits) const;

  /// The result type (int64, float64 or bool).
  DataType type() const { return DataType(result_type_); }
  /// Kernel calls per chunk, for tests and explain.
  size_t num_instructions() const { return code_.size(); }
  /// Scratch registers one evaluation needs.
  int num_registers() const { return registers_; }

 private:
  friend class FusedCompiler;
  bool bind(const Batch& input, std::vector<FusedColumnView>& columns) const;
  /// Runs the program over one chunk; a bool result is packed at bit `start` of `out` and
  /// the number of true rows added to `ones`. False when a row's result would be null.
  bool run_chunk(const std::vector<FusedColumnView>& columns, int64_t start, int64_t rows,
                 uint8_t* scratch, uint8_t* out, int64_t& ones) const;
  bool run(const FusedInstr& in, const std::vector<FusedColumnView>& columns, int64_t start,
           int64_t rows, uint8_t* scratch, uint8_t* out) const;
  bool run_function(const FusedInstr& in, const void* a, const void* b, const void* cond, void* d,
                    int64_t rows) const;

  std::vector<FusedInstr> code_;
  std::vector<FusedInput> inputs_;
  int registers_ = 0;
  int result_register_ = 0;  ///< Boolean results: the register packed into the output bitmap
  TypeId result_type_ = TypeId::Int64;
};

}  // namespace ember
