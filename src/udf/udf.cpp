// The Udf builder: validates every setting when it is made, so a bad UDF never reaches a query.
#include "ember/udf.h"

#include <cmath>
#include <sstream>

#include "udf/function_registry.h"
#include "udf/udf_registry.h"
#include "udf/udf_spec.h"

namespace ember {
namespace {

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

[[noreturn]] void reject(const UdfSpec& spec, const std::string& why) {
  throw InvalidArgument("udf '" + spec.name + "': " + why);
}

/// Settings about actors mean nothing for a function run inline by the pipeline threads.
void require_stateful(const UdfSpec& spec, const char* setting) {
  if (!spec.stateful)
    throw InvalidArgument("udf '" + spec.name + "' is stateless (Udf::fn), and ." + setting +
                          "() applies only to stateful UDFs (Udf::cls<T>)");
}

void require_name(const std::string& name) {
  if (name.empty()) throw InvalidArgument("a udf needs a non-empty name");
}

}  // namespace

template <class F>
Udf Udf::with(F&& change) const {
  auto copy = std::make_shared<UdfSpec>(*spec_);
  change(*copy);
  return Udf(std::move(copy));
}

Udf Udf::make_stateful(std::string name, detail::UdfFactory factory, std::string class_name) {
  require_name(name);
  auto spec = std::make_shared<UdfSpec>();
  spec->name = std::move(name);
  spec->stateful = true;
  spec->factory = std::move(factory);
  spec->class_name = std::move(class_name);
  // Unset, an actor reserves no CPU (as an unset request in Daft or Ray): a pool of four on a
  // two-core laptop runs, sharing the cores, instead of failing admission. num_cpus() opts in.
  spec->num_cpus = 0;
  return Udf(std::move(spec));
}

Udf Udf::fn(std::string name, std::function<Column(const Batch&)> f) {
  require_name(name);
  if (!f)
    throw InvalidArgument("udf '" + name + "': Udf::fn needs a callable, got an empty function");
  auto spec = std::make_shared<UdfSpec>();
  spec->name = std::move(name);
  // A registered plain function is known by name to every process: it can run on any rank.
  if (const auto* plain = f.target<detail::UdfFunctionPointer>()) {
    std::string registered = registered_function_name(*plain, spec->name);
    if (!registered.empty()) {
      spec->portable_kind = kRegisteredFunctionKind;
      spec->portable_payload = std::move(registered);
    }
  }
  spec->function = std::move(f);
  spec->num_cpus = 0;  // runs on the pipeline threads, holds nothing of its own
  return Udf(std::move(spec));
}

Udf Udf::returns(DataType type) const {
  if (type.id() == TypeId::Null)
    reject(*spec_,
           ".returns() needs a concrete type (e.g. int64, float32, utf8, list(T)), not null");
  return with([&](UdfSpec& s) { s.return_type = std::move(type); });
}

Udf Udf::init_args(InitArgs args) const {
  require_stateful(*spec_, "init_args");
  return with([&](UdfSpec& s) { s.init_args = std::move(args); });
}

Udf Udf::batch_size(int64_t rows) const {
  if (rows < 1) reject(*spec_, "batch_size must be at least 1 row, got " + std::to_string(rows));
  return with([&](UdfSpec& s) { s.batch_size = rows; });
}

Udf Udf::concurrency(int actors) const {
  require_stateful(*spec_, "concurrency");
  if (actors < 1)
    reject(*spec_, "concurrency must be at least 1 actor, got " + std::to_string(actors));
  // Each actor is a thread or a process with per-actor bookkeeping: a pool of millions is a
  // typo, refused here rather than after allocating for it.
  constexpr int kMaxActors = 4096;
  if (actors > kMaxActors)
    reject(*spec_, "concurrency must be at most " + std::to_string(kMaxActors) + " actors, got " +
                       std::to_string(actors));
  return with([&](UdfSpec& s) {
    s.concurrency = actors;
    s.max_actors = actors;
  });
}

Udf Udf::concurrency(int min_actors, int max_actors) const {
  Udf out = concurrency(min_actors);  // validates the minimum
  if (max_actors < min_actors)
    reject(*spec_, "concurrency max must be at least its min " + std::to_string(min_actors) +
                       ", got " + std::to_string(max_actors));
  (void)concurrency(max_actors);  // validates the maximum
  return out.with([&](UdfSpec& s) { s.max_actors = max_actors; });
}

Udf Udf::num_cpus(double cpus) const {
  if (!(cpus >= 0) || !std::isfinite(cpus))
    reject(*spec_, "num_cpus must be a finite number >= 0, got " + number_text(cpus));
  return with([&](UdfSpec& s) {
    s.num_cpus = cpus;
    s.num_cpus_set = true;
  });
}

Udf Udf::num_gpus(double gpus) const {
  require_stateful(*spec_, "num_gpus");
  if (!(gpus >= 0) || !std::isfinite(gpus))
    reject(*spec_, "num_gpus must be a finite number >= 0, got " + number_text(gpus));
  if (gpus > 1 && gpus != std::floor(gpus))
    reject(*spec_, "num_gpus above 1 must be a whole number of devices, got " + number_text(gpus) +
                       " (fractions in (0,1) share one device)");
  return with([&](UdfSpec& s) { s.num_gpus = gpus; });
}

Udf Udf::memory_bytes(int64_t bytes) const {
  if (bytes < 0) reject(*spec_, "memory_bytes must be >= 0, got " + std::to_string(bytes));
  return with([&](UdfSpec& s) { s.memory_bytes = bytes; });
}

Udf Udf::isolation(Isolation iso) const {
  require_stateful(*spec_, "isolation");
  if (iso == Isolation::Process) {
    if (spec_->class_name.empty())
      reject(*spec_,
             "Isolation::Process constructs the class by name in a worker process, but "
             "it is not registered: add EMBER_REGISTER_UDF(YourClass) at namespace "
             "scope in a .cpp file of this program");
    if (udf_name_is_ambiguous(spec_->class_name))
      reject(*spec_, "Isolation::Process needs a unique class name, but EMBER_REGISTER_UDF(" +
                         spec_->class_name + ") was used for two different types: rename one");
  }
  return with([&](UdfSpec& s) { s.isolation = iso; });
}

Udf Udf::max_retries(int retries) const {
  require_stateful(*spec_, "max_retries");
  if (retries < 0) reject(*spec_, "max_retries must be >= 0, got " + std::to_string(retries));
  return with([&](UdfSpec& s) { s.max_retries = retries; });
}

Udf Udf::retry_backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max) const {
  require_stateful(*spec_, "retry_backoff");
  if (initial.count() < 0 || max < initial)
    reject(*spec_, "retry_backoff needs 0 <= initial <= max, got " +
                       std::to_string(initial.count()) + " ms and " + std::to_string(max.count()) +
                       " ms");
  return with([&](UdfSpec& s) {
    s.retry_initial = initial;
    s.retry_max = max;
  });
}

Udf Udf::on_error(OnError policy) const {
  require_stateful(*spec_, "on_error");
  if (policy != OnError::Raise && policy != OnError::Null && policy != OnError::Skip)
    reject(*spec_, "on_error needs OnError::Raise, OnError::Null or OnError::Skip");
  return with([&](UdfSpec& s) { s.on_error = policy; });
}

Udf Udf::max_failed_rows(int64_t rows) const {
  require_stateful(*spec_, "max_failed_rows");
  if (rows < 0) reject(*spec_, "max_failed_rows must be >= 0, got " + std::to_string(rows));
  return with([&](UdfSpec& s) { s.max_failed_rows = rows; });
}

Udf Udf::timeout(std::chrono::milliseconds limit) const {
  require_stateful(*spec_, "timeout");
  if (limit.count() <= 0)
    reject(*spec_, "timeout must be > 0 ms, got " + std::to_string(limit.count()) + " ms");
  return with([&](UdfSpec& s) { s.timeout = limit; });
}

Udf Udf::max_concurrency(int calls_per_actor) const {
  require_stateful(*spec_, "max_concurrency");
  if (calls_per_actor < 1)
    reject(*spec_, "max_concurrency must be >= 1, got " + std::to_string(calls_per_actor));
  return with([&](UdfSpec& s) { s.max_concurrency = calls_per_actor; });
}

const std::string& Udf::name() const { return spec_->name; }

}  // namespace ember
