// Human-readable quantities for resource budgets and admission errors, and the exact byte
// totals admission compares.
#pragma once

#include <cstdint>
#include <string>

namespace ember {

/// An exact total of memory requests. One pool asks for at most INT_MAX actors x INT64_MAX
/// bytes (< 2^94), so even a sum over billions of pools stays below 2^127: admission adds and
/// compares requests in it without overflow, and a demand beyond what int64 holds is simply
/// one that does not fit (never a wrapped or undefined value).
using ByteTotal = __int128;

/// `actors` x `bytes_each`, exactly.
constexpr ByteTotal total_bytes(int64_t actors, int64_t bytes_each) {
  return ByteTotal{actors} * bytes_each;
}

/// A count of CPUs or GPUs without trailing zeros: 3 -> "3", 1.5 -> "1.5", 1/3 -> "0.333";
/// from 1e15 on in exponent form, 2e300 -> "2e+300". Long double, so that a total of huge
/// requests (2 x DBL_MAX) is still a number rather than "inf".
std::string format_amount(long double amount);
/// Bytes in binary units: 512 -> "512 B", 25125535744 -> "23.4 GiB", 6 GiB -> "6 GiB",
/// 2 x INT64_MAX -> "16 EiB".
std::string format_bytes(ByteTotal bytes);
/// Every digit of a byte count: 2 x INT64_MAX -> "18446744073709551614".
std::string format_byte_count(ByteTotal bytes);
/// "1 CPU", "0.5 CPU", "3 CPUs", "0 CPUs": singular for amounts in (0, 1].
std::string format_units(long double amount, const char* singular);

}  // namespace ember
