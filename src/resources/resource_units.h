// Human-readable quantities for resource budgets and admission errors.
#pragma once

#include <cstdint>
#include <string>

namespace ember {

/// A count of CPUs or GPUs without trailing zeros: 3 -> "3", 1.5 -> "1.5", 1/3 -> "0.333".
std::string format_amount(double amount);
/// Bytes in binary units: 512 -> "512 B", 25125535744 -> "23.4 GiB", 6 GiB -> "6 GiB".
std::string format_bytes(int64_t bytes);
/// "1 CPU", "0.5 CPU", "3 CPUs", "0 CPUs": singular for amounts in (0, 1].
std::string format_units(double amount, const char* singular);

}  // namespace ember
