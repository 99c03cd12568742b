// Timestamps as text: ISO 8601 in UTC ("2024-03-01 12:00:00.250000"), both ways.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ember {

/// "YYYY-MM-DD HH:MM:SS" plus ".ffffff" when the microseconds are not zero.
std::string format_timestamp(int64_t micros);

/// Parses "YYYY-MM-DD", "YYYY-MM-DD HH:MM:SS[.f{1,9}]" ('T' also separates) with an optional
/// trailing "Z" or "+00:00"; nullopt for anything else.
std::optional<int64_t> parse_timestamp(std::string_view text);

/// "YYYY-MM-DD" of a day since 1970-01-01, the year as format_timestamp writes it.
std::string format_date(int64_t days);

/// Parses exactly "YYYY-MM-DD" (a real day of that month); nullopt for anything else.
std::optional<int64_t> parse_date(std::string_view text);

/// Days since 1970-01-01 of a proleptic Gregorian date, and back.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);
void civil_from_days(int64_t z, int64_t* y, unsigned* m, unsigned* d);

}  // namespace ember
