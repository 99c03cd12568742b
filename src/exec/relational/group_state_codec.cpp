// Aggregate states as bytes, so that a partition aggregated on one rank is merged on another
// exactly as if it had been aggregated there: every state travels bit for bit (float sums
// included), with each group's key and hash.
#include <cstring>

#include "ember/error.h"
#include "exec/relational/group_table.h"
#include "exec/relational/grouped_aggregate.h"
#include "udf/value_codec.h"

namespace ember {

namespace {

template <class T>
void put_array(process::MessageWriter& out, const std::vector<T>& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  out.put_string(std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)));
}

template <class T>
std::vector<T> get_array(process::MessageReader& in) {
  const std::string_view bytes = in.get_string();
  if (bytes.size() % sizeof(T) != 0) throw Error("an aggregate state of a broken length");
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

uint64_t get_count(process::MessageReader& in) {
  const auto n = in.get<uint64_t>();
  if (n > in.remaining()) throw Error("an aggregate state longer than its message");
  return n;
}

}  // namespace

void GroupedAggregate::encode(process::MessageWriter& out) const {
  put_array(out, count_);
  put_array(out, int_sum_);
  put_array(out, float_sum_);
  out.put(static_cast<uint64_t>(best_.size()));
  for (const Value& v : best_) put_value(out, v);
  out.put(static_cast<uint64_t>(distinct_.size()));
  for (const auto& set : distinct_) {
    out.put(static_cast<uint64_t>(set.size()));
    for (const std::string& s : set) out.put_string(s);
  }
  out.put(static_cast<uint64_t>(items_.size()));
  for (const auto& items : items_) {
    out.put(static_cast<uint64_t>(items.size()));
    for (const Value& v : items) put_value(out, v);
  }
}

void GroupedAggregate::decode(process::MessageReader& in) {
  count_ = get_array<int64_t>(in);
  int_sum_ = get_array<__int128>(in);
  float_sum_ = get_array<double>(in);
  best_.resize(get_count(in));
  for (Value& v : best_) v = get_value(in);
  distinct_.assign(get_count(in), {});
  for (auto& set : distinct_)
    for (uint64_t n = get_count(in); n > 0; --n) set.emplace(in.get_string());
  items_.assign(get_count(in), {});
  for (auto& items : items_)
    for (uint64_t n = get_count(in); n > 0; --n) items.push_back(get_value(in));
}

void GroupTable::encode(process::MessageWriter& out) const {
  out.put_string(arena_);
  put_array(out, key_start_);
  put_array(out, hashes_);
  for (const GroupedAggregate& a : aggregates_) a.encode(out);
}

GroupTable GroupTable::decode(process::MessageReader& in,
                              std::vector<GroupedAggregate> aggregates) {
  GroupTable table(std::move(aggregates));
  table.indexed_ = false;
  table.arena_ = std::string(in.get_string());
  table.key_start_ = get_array<int64_t>(in);
  table.hashes_ = get_array<uint64_t>(in);
  const auto& starts = table.key_start_;
  if (starts.empty() || starts.front() != 0 || starts.size() != table.hashes_.size() + 1 ||
      starts.back() != static_cast<int64_t>(table.arena_.size()))
    throw Error("a group table of a broken shape");
  for (size_t g = 0; g + 1 < starts.size(); ++g) {
    if (starts[g] > starts[g + 1]) throw Error("a group table of a broken shape");
    const int64_t width = starts[g + 1] - starts[g];
    if (table.key_width_ != width) table.key_width_ = table.key_width_ < 0 ? width : 0;
  }
  for (GroupedAggregate& a : table.aggregates_) {
    a.decode(in);
    if (a.groups() != table.size()) throw Error("a group table of a broken shape");
    a.resize(table.size());  // a state the function needs is there for every group
  }
  return table;
}

}  // namespace ember
