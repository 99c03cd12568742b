// Hash kernels. The bytes hashed are fixed by the documentation of Expr::hash() and must never
// change: stored splits and partitions depend on them. Numbers are written little-endian
// explicitly, so a big-endian machine hashes the same bytes.
#include "expr/hash_kernels.h"

#include <xxhash.h>

#include <cmath>
#include <cstring>

#include "core/buffer_access.h"
#include "expr/kernel_input.h"

namespace ember {

namespace {

int64_t finish(XXH64_hash_t h) { return int64_t(h >> 1); }

int64_t hash_int(int64_t v) {
  unsigned char b[8];
  for (int k = 0; k < 8; ++k) b[k] = static_cast<unsigned char>(uint64_t(v) >> (8 * k));
  return finish(XXH64(b, 8, 0));
}

int64_t hash_float(double v) {
  uint64_t bits = 0x7FF8000000000000ull;  // every NaN hashes as the canonical quiet NaN
  if (!std::isnan(v)) {
    if (v == 0) v = 0.0;  // -0.0 equals 0.0, so it hashes as 0.0
    std::memcpy(&bits, &v, 8);
  }
  return hash_int(int64_t(bits));
}

template <class F>
Column hashes(const Column& c, F f) {
  const int64_t n = c.size();
  auto out = detail::BufferAccess::allocate_uninitialized(n * 8);
  auto* d = reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*out));
  for (int64_t i = 0; i < n; ++i) d[i] = f(i);
  return Column::from_buffers(int64(), n, -1, same_validity(c), out);
}

}  // namespace

Column hash_values(const Column& c) {
  switch (c.type().id()) {
    case TypeId::Int64:
    case TypeId::Timestamp: {
      const int64_t* p = c.values<int64_t>();
      return hashes(c, [p](int64_t i) { return hash_int(p[i]); });
    }
    case TypeId::Int32:
    case TypeId::Date32: {  // a date hashes as its days
      const int32_t* p = c.values<int32_t>();
      return hashes(c, [p](int64_t i) { return hash_int(p[i]); });
    }
    case TypeId::Float64: {
      const double* p = c.values<double>();
      return hashes(c, [p](int64_t i) { return hash_float(p[i]); });
    }
    case TypeId::Float32: {
      const float* p = c.values<float>();
      return hashes(c, [p](int64_t i) { return hash_float(p[i]); });
    }
    case TypeId::Boolean:
      return hashes(c, [&c](int64_t i) {
        const unsigned char b = c.is_null(i) ? 0 : c.value<bool>(i);
        return finish(XXH64(&b, 1, 0));
      });
    default: {  // utf8 and binary: their bytes
      const kernel::Utf8Read read{c.offsets(), c.chars()};
      return hashes(c, [read](int64_t i) {
        const std::string_view s = read(i);
        return finish(XXH64(s.data(), s.size(), 0));
      });
    }
  }
}

}  // namespace ember
