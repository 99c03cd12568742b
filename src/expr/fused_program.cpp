// Evaluation of compiled expressions: each chunk of rows runs the whole program through
// thread-local scratch registers before the next chunk starts, so intermediates never leave L1.
#include "expr/fused_program.h"

#include <algorithm>

#include "core/bit_packing.h"
#include "core/bitmap.h"
#include "core/buffer_access.h"
#include "expr/scalar_division.h"

namespace ember {

namespace {

using Code = FusedInstr::Code;
constexpr int64_t kRegisterBytes = FusedProgram::kChunkRows * 8;

// Scratch registers of the calling thread, grown to the largest program it has run.
uint8_t* scratch_registers(int count) {
  struct alignas(64) Register {
    uint8_t bytes[kRegisterBytes];
  };
  thread_local std::unique_ptr<Register[]> regs;
  thread_local int capacity = 0;
  if (count > capacity) {
    regs = std::make_unique<Register[]>(static_cast<size_t>(count));
    capacity = count;
  }
  return regs ? regs[0].bytes : nullptr;
}

// The rows of `s` for the chunk starting at `start`: a column at its row, a register, or the
// address of the scalar itself (kernels broadcast it).
const void* operand(const FusedSlot& s, const std::vector<FusedColumnView>& columns, int64_t start,
                    uint8_t* scratch) {
  switch (s.kind) {
    case FusedSlot::Kind::Column:
      // Bool columns are read as bits by LoadBits; the others are 8-byte values.
      if (s.type == TypeId::Boolean) return columns[static_cast<size_t>(s.index)].data;
      return columns[static_cast<size_t>(s.index)].data + start * 8;
    case FusedSlot::Kind::Register:
      return scratch + s.index * kRegisterBytes;
    case FusedSlot::Kind::Scalar:
      break;
  }
  if (s.type == TypeId::Float64) return &s.f64;
  if (s.type == TypeId::Boolean) return &s.u8;
  return &s.i64;
}

template <class T>
const T* as(const void* p) {
  return static_cast<const T*>(p);
}

}  // namespace

// Checks the batch against the compiled schema and points `columns` at its data.
bool FusedProgram::bind(const Batch& input, std::vector<FusedColumnView>& columns) const {
  if (input.num_rows() == 0) return false;
  columns.reserve(inputs_.size());
  for (const FusedInput& in : inputs_) {
    if (in.column >= input.num_columns()) return false;
    const Column& c = input.column(in.column);
    if (c.type().id() != in.type || c.null_count() != 0 ||
        input.schema().field(in.column).name != in.name) {
      return false;
    }
    if (in.type == TypeId::Boolean) {
      columns.push_back({c.bool_bits(), c.offset()});
    } else {
      columns.push_back({reinterpret_cast<const uint8_t*>(c.values<int64_t>()), 0});
    }
  }
  return true;
}

std::optional<Column> FusedProgram::evaluate(const Batch& input) const {
  std::vector<FusedColumnView> columns;
  if (!bind(input, columns)) return std::nullopt;
  const int64_t n = input.num_rows();
  const bool bits = result_type_ == TypeId::Boolean;
  auto out = detail::BufferAccess::allocate_uninitialized(bits ? bitmap::bytes_for(n) : n * 8);
  uint8_t* scratch = scratch_registers(registers_);
  int64_t ones = 0;
  for (int64_t start = 0; start < n; start += kChunkRows) {
    const int64_t rows = std::min(kChunkRows, n - start);
    if (!run_chunk(columns, start, rows, scratch, detail::BufferAccess::mutable_data(*out), ones))
      return std::nullopt;
  }
  return Column::from_buffers(DataType(result_type_), n, 0, nullptr, std::move(out));
}

std::optional<int64_t> FusedProgram::evaluate_mask(const Batch& input, uint8_t* bits) const {
  std::vector<FusedColumnView> columns;
  if (result_type_ != TypeId::Boolean || !bind(input, columns)) return std::nullopt;
  const int64_t n = input.num_rows();
  uint8_t* scratch = scratch_registers(registers_);
  int64_t ones = 0;
  for (int64_t start = 0; start < n; start += kChunkRows) {
    const int64_t rows = std::min(kChunkRows, n - start);
    if (!run_chunk(columns, start, rows, scratch, bits, ones)) return std::nullopt;
  }
  return ones;
}

bool FusedProgram::run_chunk(const std::vector<FusedColumnView>& columns, int64_t start,
                             int64_t rows, uint8_t* scratch, uint8_t* out, int64_t& ones) const {
  for (const FusedInstr& in : code_) {
    if (!run(in, columns, start, rows, scratch, out)) return false;
  }
  if (result_type_ == TypeId::Boolean) {
    // Chunks start at multiples of 1024 rows: whole output bytes.
    ones += bitmap::pack(scratch + result_register_ * kRegisterBytes, out + start / 8, rows);
  }
  return true;
}

// Runs one kernel over one chunk; false when a row's result would be null.
bool FusedProgram::run(const FusedInstr& in, const std::vector<FusedColumnView>& columns,
                       int64_t start, int64_t rows, uint8_t* scratch, uint8_t* out) const {
  const void* a = operand(in.a, columns, start, scratch);
  const void* b = operand(in.b, columns, start, scratch);
  void* d = in.dst == FusedInstr::kOutput ? out + start * 8 : scratch + in.dst * kRegisterBytes;
  auto* i64 = static_cast<int64_t*>(d);
  auto* f64 = static_cast<double*>(d);
  auto* u8 = static_cast<uint8_t*>(d);
  switch (in.code) {
    case Code::ArithI64:
      return !fused::arith_i64(in.op, in.shape, as<int64_t>(a), as<int64_t>(b), i64, rows);
    case Code::AffineI64:
      return !fused::affine_i64(as<int64_t>(a), in.scale, in.offset, i64, rows);
    case Code::ArithF64:
      return !fused::arith_f64(in.op, in.shape, as<double>(a), as<double>(b), f64, rows);
    case Code::DivideByScalar:
      return !divide_by_scalar(as<int64_t>(a), in.divisor, in.op == BinaryOp::Mod, i64, rows);
    case Code::Divisible:
      fused::divisible_i64(as<int64_t>(a), in.test, in.negate, u8, rows);
      return true;
    case Code::CompareI64:
      fused::compare_i64(in.op, in.shape, as<int64_t>(a), as<int64_t>(b), u8, rows);
      return true;
    case Code::CompareF64:
      fused::compare_f64(in.op, in.shape, as<double>(a), as<double>(b), u8, rows);
      return true;
    case Code::CompareU8:
      fused::compare_u8(in.op, in.shape, as<uint8_t>(a), as<uint8_t>(b), u8, rows);
      return true;
    case Code::Logic:
      fused::logic_u8(in.op, in.shape, as<uint8_t>(a), as<uint8_t>(b), u8, rows);
      return true;
    case Code::Not:
      fused::not_u8(as<uint8_t>(a), u8, rows);
      return true;
    case Code::NegateI64:
      return !fused::negate_i64(as<int64_t>(a), i64, rows);
    case Code::NegateF64:
      fused::negate_f64(as<double>(a), f64, rows);
      return true;
    case Code::CastI64F64:
      fused::cast_i64_f64(as<int64_t>(a), f64, rows);
      return true;
    case Code::CastU8I64:
      fused::cast_u8_i64(as<uint8_t>(a), i64, rows);
      return true;
    case Code::CastU8F64:
      fused::cast_u8_f64(as<uint8_t>(a), f64, rows);
      return true;
    case Code::CastI64U8:
      fused::cast_i64_u8(as<int64_t>(a), u8, rows);
      return true;
    case Code::CastF64U8:
      fused::cast_f64_u8(as<double>(a), u8, rows);
      return true;
    case Code::CastF64I64:
      return !fused::cast_f64_i64(as<double>(a), i64, rows);
    case Code::LoadBits: {
      const FusedColumnView& c = columns[static_cast<size_t>(in.a.index)];
      bitmap::unpack(c.data, c.bit_offset + start, u8, rows);
      return true;
    }
    case Code::AllFalse:
      std::fill_n(u8, rows, uint8_t(0));
      return true;
    default:
      return run_function(in, a, b, operand(in.cond, columns, start, scratch), d, rows);
  }
  return false;
}

// The expression library's functions: math, clip's min/max and when()'s select.
bool FusedProgram::run_function(const FusedInstr& in, const void* a, const void* b,
                                const void* cond, void* d, int64_t rows) const {
  const auto* c = static_cast<const uint8_t*>(cond);
  // A scalar operand is read at every row (step 0); a column or register row by row.
  const int64_t sa = in.a.kind == FusedSlot::Kind::Scalar ? 0 : 1;
  const int64_t sb = in.b.kind == FusedSlot::Kind::Scalar ? 0 : 1;
  switch (in.code) {
    case Code::MathI64:
      return !fused::math_i64(in.function, in.digits, as<int64_t>(a), static_cast<int64_t*>(d),
                              rows);
    case Code::MathF64:
      fused::math_f64(in.function, in.digits, as<double>(a), static_cast<double*>(d), rows);
      return true;
    case Code::PowF64:
      fused::pow_f64(in.shape, as<double>(a), as<double>(b), static_cast<double*>(d), rows);
      return true;
    case Code::MinMaxI64:
      fused::min_max_i64(in.max, in.shape, as<int64_t>(a), as<int64_t>(b), static_cast<int64_t*>(d),
                         rows);
      return true;
    case Code::MinMaxF64:
      fused::min_max_f64(in.max, in.shape, as<double>(a), as<double>(b), static_cast<double*>(d),
                         rows);
      return true;
    case Code::SelectI64:
      fused::select_i64(c, as<int64_t>(a), sa, as<int64_t>(b), sb, static_cast<int64_t*>(d), rows);
      return true;
    case Code::SelectF64:
      fused::select_f64(c, as<double>(a), sa, as<double>(b), sb, static_cast<double*>(d), rows);
      return true;
    case Code::SelectU8:
      fused::select_u8(c, as<uint8_t>(a), sa, as<uint8_t>(b), sb, static_cast<uint8_t*>(d), rows);
      return true;
    default:
      return false;
  }
}

}  // namespace ember
