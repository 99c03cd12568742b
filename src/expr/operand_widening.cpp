// Widening of operands before arithmetic, comparison and negation.
#include "expr/operand_widening.h"

#include "expr/cast_kernels.h"

namespace ember {

Column widened(const Column& c) {
  switch (c.type().id()) {
    case TypeId::Int32:
      return cast_column(c, int64());
    case TypeId::Float32:
      return cast_column(c, float64());
    case TypeId::Timestamp:
      return Column::from_buffers(int64(), c.size(), c.null_count(), c.validity_buffer(),
                                  c.values_buffer(), nullptr, c.offset());
    case TypeId::Date32:  // its days, as int32 widens
      return cast_column(
          Column::from_buffers(int32(), c.size(), c.null_count(), c.validity_buffer(),
                               c.values_buffer(), nullptr, c.offset()),
          int64());
    case TypeId::Binary:
      return Column::from_buffers(utf8(), c.size(), c.null_count(), c.validity_buffer(),
                                  c.values_buffer(), c.data_buffer(), c.offset());
    default:
      return c;
  }
}

Operand widened(Operand o) {
  if (!o.is_scalar) return Operand::of(widened(o.column));
  switch (o.type.id()) {
    case TypeId::Int32:
      o.type = int64();
      break;
    case TypeId::Float32:
      o.type = float64();
      if (auto* f = std::get_if<float>(&o.scalar)) o.scalar = static_cast<double>(*f);
      break;
    case TypeId::Timestamp:
      o.type = int64();
      if (auto* t = std::get_if<Timestamp>(&o.scalar)) o.scalar = t->micros;
      break;
    case TypeId::Date32:
      o.type = int64();
      if (auto* d = std::get_if<Date>(&o.scalar)) o.scalar = int64_t{d->days};
      break;
    case TypeId::Binary:
      o.type = utf8();
      if (auto* b = std::get_if<std::vector<uint8_t>>(&o.scalar))
        o.scalar = std::string(b->begin(), b->end());
      break;
    default:
      break;
  }
  return o;
}

}  // namespace ember
