// The shared, locked accounting behind a ResourcePool: what exists and what each lease holds.
#include "resources/resource_ledger.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "ember/error.h"
#include "resources/resource_shortfall.h"
#include "resources/resource_units.h"

namespace ember {
namespace {

/// Malformed requests are programming errors of the caller, not a lack of resources.
void validate(const PoolRequest& r) {
  auto bad = [&](const std::string& what) {
    throw InvalidArgument("udf '" + r.udf_name + "': " + what);
  };
  if (r.actors < 1) bad("a pool needs at least 1 actor, got " + std::to_string(r.actors));
  if (!(r.cpus_per_actor >= 0) || !std::isfinite(r.cpus_per_actor))
    bad("num_cpus must be a finite number >= 0, got " + format_amount(r.cpus_per_actor));
  if (!(r.gpus_per_actor >= 0) || !std::isfinite(r.gpus_per_actor))
    bad("num_gpus must be a finite number >= 0, got " + format_amount(r.gpus_per_actor));
  if (r.gpus_per_actor > 1 && r.gpus_per_actor != std::floor(r.gpus_per_actor))
    bad("num_gpus above 1 must be a whole number, got " + format_amount(r.gpus_per_actor));
  if (r.memory_per_actor < 0)
    bad("memory_bytes must be >= 0, got " + std::to_string(r.memory_per_actor));
}

}  // namespace

ResourceLedger::ResourceLedger(Resources total, std::vector<int> gpu_ids)
    : total_(total), gpu_ids_(std::move(gpu_ids)), gpus_(static_cast<int>(gpu_ids_.size())) {}

std::vector<std::vector<std::vector<int>>> ResourceLedger::place_gpus(
    const std::vector<PoolRequest>& requests, GpuLedger& ledger, std::vector<Hold>& holds) const {
  std::vector<std::vector<std::vector<int>>> placed(requests.size());
  std::vector<std::pair<size_t, int>> order;  // (pool, actor)
  for (size_t p = 0; p < requests.size(); ++p) {
    placed[p].resize(static_cast<size_t>(requests[p].actors));
    if (requests[p].gpus_per_actor > 0)
      for (int a = 0; a < requests[p].actors; ++a) order.emplace_back(p, a);
  }
  // Largest first: whole devices before fractions, big fractions before small ones, so small
  // shares fill the gaps big ones leave (best-fit decreasing).
  std::stable_sort(order.begin(), order.end(), [&](const auto& x, const auto& y) {
    return requests[x.first].gpus_per_actor > requests[y.first].gpus_per_actor;
  });
  for (const auto& [p, a] : order) {
    const PoolRequest& r = requests[p];
    Hold& hold = holds[p];
    std::vector<int>& devices = placed[p][static_cast<size_t>(a)];
    if (r.gpus_per_actor >= 1) {
      auto taken = ledger.take_whole(static_cast<int>(std::llround(r.gpus_per_actor)));
      if (!taken) throw_gpu_unplaceable(r, a, gpus_, gpu_ids_, gpus_.held_gpus());
      devices = *taken;
      for (int d : devices) hold.gpu_units.emplace_back(d, GpuLedger::kUnitsPerDevice);
    } else {
      int64_t units = GpuLedger::units_for_share(r.gpus_per_actor);
      auto taken = ledger.take_share(units);
      if (!taken) throw_gpu_unplaceable(r, a, gpus_, gpu_ids_, gpus_.held_gpus());
      devices = {*taken};
      hold.gpu_units.emplace_back(*taken, units);
    }
  }
  return placed;
}

Admission ResourceLedger::admit(const std::vector<PoolRequest>& requests,
                                std::chrono::milliseconds wait) {
  for (const PoolRequest& r : requests) validate(r);
  std::unique_lock lock(mu_);
  if (wait.count() <= 0) return admit_locked(requests);
  // More than the machine has at all: no release will ever make room, so say so now.
  require_possible_locked(requests);
  const uint64_t ticket = next_ticket_++;
  waiting_.push_back(ticket);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  auto leave_queue = [&] {
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), ticket));
    freed_.notify_all();  // the next waiter may be at the front now
  };
  for (;;) {
    if (waiting_.front() == ticket) {
      try {
        Admission a = admit_locked(requests);
        leave_queue();
        return a;
      } catch (const ResourceError& e) {
        if (std::chrono::steady_clock::now() >= deadline) {
          leave_queue();
          throw ResourceError(std::string(e.what()) + " (waited " + std::to_string(wait.count()) +
                              " ms for other queries to release resources: "
                              "RunOptions::wait_for_resources)");
        }
      } catch (...) {
        leave_queue();
        throw;
      }
    } else if (std::chrono::steady_clock::now() >= deadline) {
      leave_queue();
      // Still behind earlier waiters: report the shortfall as it stands now.
      try {
        admit_locked(requests);
      } catch (const ResourceError& e) {
        throw ResourceError(std::string(e.what()) + " (waited " + std::to_string(wait.count()) +
                            " ms behind earlier queries: RunOptions::wait_for_resources)");
      }
      throw ResourceError("resources: waited " + std::to_string(wait.count()) +
                          " ms behind earlier queries (RunOptions::wait_for_resources)");
    }
    freed_.wait_until(lock, deadline);
  }
}

void ResourceLedger::require_possible_locked(const std::vector<PoolRequest>& requests) const {
  require_fits(ResourceKind::Cpu, requests, total_.cpus, 0);
  require_memory_fits(requests, total_.memory_bytes, 0);
  require_fits(ResourceKind::Gpu, requests, gpus_.devices(), 0);
  GpuLedger idle(gpus_.devices());
  std::vector<Hold> holds(requests.size());
  place_gpus(requests, idle, holds);
}

Admission ResourceLedger::admit_locked(const std::vector<PoolRequest>& requests) {
  require_fits(ResourceKind::Cpu, requests, total_.cpus, held_cpus_);
  require_memory_fits(requests, total_.memory_bytes, held_memory_);
  require_fits(ResourceKind::Gpu, requests, gpus_.devices(), gpus_.held_gpus());

  std::vector<Hold> holds(requests.size());
  GpuLedger gpus_after = gpus_;
  auto placed = place_gpus(requests, gpus_after, holds);

  Admission out;
  double cpus = 0;
  int64_t memory = 0;
  for (size_t p = 0; p < requests.size(); ++p) {
    const PoolRequest& r = requests[p];
    // Every pool's bytes, and their sum, fit in what is free (an int64): checked above.
    const ByteTotal bytes = total_bytes(r.actors, r.memory_per_actor);
    assert(bytes <= total_.memory_bytes - held_memory_);
    PoolGrant grant{r.udf_name,
                    {},
                    r.actors * r.cpus_per_actor,
                    r.actors * r.gpus_per_actor,
                    static_cast<int64_t>(bytes)};
    for (int a = 0; a < r.actors; ++a) {
      ActorContext ctx{a, {}, r.cpus_per_actor, r.memory_per_actor};
      for (int d : placed[p][static_cast<size_t>(a)])
        ctx.gpu_ids.push_back(gpu_ids_[static_cast<size_t>(d)]);
      grant.actors.push_back(std::move(ctx));
    }
    holds[p].cpus = grant.held_cpus;
    holds[p].memory = grant.held_memory;
    cpus += grant.held_cpus;
    memory += grant.held_memory;
    out.pools.push_back(std::move(grant));
  }
  // Commit: nothing above may throw past this point.
  gpus_ = std::move(gpus_after);
  held_cpus_ += cpus;
  held_memory_ += memory;
  out.id = next_id_++;
  out.cpus_left = std::max(0.0, total_.cpus - held_cpus_);
  holds_.emplace(out.id, std::move(holds));
  return out;
}

void ResourceLedger::give_back_locked(Hold& hold) {
  if (hold.released) return;
  hold.released = true;
  held_cpus_ = std::max(0.0, held_cpus_ - hold.cpus);
  held_memory_ -= hold.memory;
  for (const auto& [device, units] : hold.gpu_units) gpus_.give_back(device, units);
}

void ResourceLedger::release(uint64_t id) {
  {
    std::lock_guard lock(mu_);
    auto it = holds_.find(id);
    if (it == holds_.end()) return;
    for (Hold& hold : it->second) give_back_locked(hold);
    holds_.erase(it);
    if (holds_.empty()) held_cpus_ = 0.0;  // no drift from summing fractions
  }
  freed_.notify_all();
}

void ResourceLedger::release_pool(uint64_t id, size_t pool) {
  {
    std::lock_guard lock(mu_);
    auto it = holds_.find(id);
    if (it == holds_.end() || pool >= it->second.size()) return;
    give_back_locked(it->second[pool]);
    if (std::all_of(it->second.begin(), it->second.end(), [](const Hold& h) { return h.released; }))
      holds_.erase(it);
    if (holds_.empty()) held_cpus_ = 0.0;
  }
  freed_.notify_all();
}

int ResourceLedger::waiting() const {
  std::lock_guard lock(mu_);
  return static_cast<int>(waiting_.size());
}

std::string ResourceLedger::describe() const {
  std::lock_guard lock(mu_);
  return "resources: " + format_units(total_.cpus, "CPU") + ", " +
         format_bytes(total_.memory_bytes) + " memory, " + format_units(gpus_.devices(), "GPU") +
         "; held by running queries: " + format_units(held_cpus_, "CPU") + ", " +
         format_bytes(held_memory_) + ", " + format_units(gpus_.held_gpus(), "GPU");
}

}  // namespace ember
