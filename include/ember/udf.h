/// \file
/// User-defined functions: stateful classes run on actor pools, stateless functions run inline.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <utility>
#include <vector>

#include "ember/batch.h"
#include "ember/error.h"
#include "ember/expr.h"
#include "ember/on_error.h"
#include "ember/types.h"

namespace ember {

/// What an actor knows about itself; passed to a UDF constructor that accepts it.
struct ActorContext {
  int actor_id = 0;          ///< 0..concurrency-1 within its pool
  std::vector<int> gpu_ids;  ///< devices this actor holds (distinct across actors)
  double num_cpus = 0;       ///< CPUs it reserved (Udf::num_cpus; 0 when unset)
  int64_t memory_bytes = 0;  ///< bytes of memory it reserved (Udf::memory_bytes)
};

/// Constructor arguments of a stateful UDF: string -> Value. Serialisable, since it crosses
/// process and rank boundaries.
class InitArgs {
 public:
  InitArgs() = default;  ///< no arguments
  /// From `{key, value}` pairs.
  InitArgs(std::initializer_list<std::pair<const std::string, Value>> items) : items_(items) {}
  /// From a map of key to value.
  explicit InitArgs(std::map<std::string, Value> items) : items_(std::move(items)) {}

  /// The value under `key` as T (bool, any integer, double, std::string). Integers widen to
  /// double. Throws InvalidArgument if the key is missing or holds another type.
  template <class T>
  T get(std::string_view key) const;
  /// Whether `key` is present.
  bool has(std::string_view key) const { return items_.find(std::string(key)) != items_.end(); }
  /// Every key and its value, sorted by key.
  const std::map<std::string, Value>& items() const { return items_; }

 private:
  const Value& at(std::string_view key, const char* wanted) const;
  std::map<std::string, Value> items_;
};

template <class T>
T InitArgs::get(std::string_view key) const {
  if constexpr (std::is_same_v<T, bool>) {
    const Value& v = at(key, "bool");
    if (auto* b = std::get_if<bool>(&v)) return *b;
    throw InvalidArgument("init arg '" + std::string(key) + "' is " + type_of(v).to_string() +
                          ", not bool");
  } else if constexpr (std::is_integral_v<T>) {
    const Value& v = at(key, "int64");
    if (auto* i = std::get_if<int64_t>(&v)) return static_cast<T>(*i);
    throw InvalidArgument("init arg '" + std::string(key) + "' is " + type_of(v).to_string() +
                          ", not int64");
  } else if constexpr (std::is_floating_point_v<T>) {
    const Value& v = at(key, "float64");
    if (auto* d = std::get_if<double>(&v)) return static_cast<T>(*d);
    if (auto* i = std::get_if<int64_t>(&v)) return static_cast<T>(*i);
    throw InvalidArgument("init arg '" + std::string(key) + "' is " + type_of(v).to_string() +
                          ", not float64");
  } else {
    static_assert(std::is_convertible_v<std::string, T>, "InitArgs::get<T>: unsupported T");
    const Value& v = at(key, "utf8");
    if (auto* s = std::get_if<std::string>(&v)) return T(*s);
    throw InvalidArgument("init arg '" + std::string(key) + "' is " + type_of(v).to_string() +
                          ", not utf8");
  }
}

/// Where an actor runs: a thread of the driver, or a worker process of its own.
enum class Isolation {
  Thread,  ///< a thread of the driver process (the default)
  Process  ///< a worker process; the class must be registered with EMBER_REGISTER_UDF
};

namespace detail {
/// A constructed UDF, type-erased. One per actor; called by one thread at a time, or by up to
/// max_concurrency threads at once when that is set.
class UdfInstance {
 public:
  virtual ~UdfInstance() = default;
  /// Runs the UDF over `args` (one column per argument expression).
  virtual Column call(const Batch& args) = 0;
};

/// Constructs a UDF instance (the expensive part).
using UdfFactory =
    std::function<std::unique_ptr<UdfInstance>(const InitArgs&, const ActorContext&)>;

template <class T>
class UdfHolder final : public UdfInstance {
 public:
  template <class... A>
  explicit UdfHolder(A&&... a) : obj_(std::forward<A>(a)...) {}
  Column call(const Batch& args) override { return obj_(args); }

 private:
  T obj_;
};

template <class T>
UdfFactory make_factory() {
  static_assert(std::is_constructible_v<T, const InitArgs&, const ActorContext&> ||
                    std::is_constructible_v<T, const InitArgs&>,
                "a stateful UDF needs a constructor taking (const InitArgs&, const "
                "ActorContext&) or (const InitArgs&)");
  return [](const InitArgs& a, const ActorContext& c) -> std::unique_ptr<UdfInstance> {
    if constexpr (std::is_constructible_v<T, const InitArgs&, const ActorContext&>)
      return std::make_unique<UdfHolder<T>>(a, c);
    else
      return std::make_unique<UdfHolder<T>>(a);
  };
}

/// Registers a factory under a class name; returns true (for static initialisation).
bool register_udf_class(std::string class_name, std::type_index type, UdfFactory factory);
/// The name a type was registered under, or "" if it was not.
std::string registered_udf_name(std::type_index type);
/// The factory registered under `class_name`, or nullptr.
const UdfFactory* find_udf_factory(const std::string& class_name);
/// A stateless UDF's function as EMBER_REGISTER_FN takes it.
using UdfFunctionPointer = Column (*)(const Batch&);
/// Registers a plain function under `name`; returns true (for static initialisation). Two
/// functions under one name are an InvalidArgument at the Udf::fn of either.
bool register_udf_function(std::string name, UdfFunctionPointer function);
}  // namespace detail

#define EMBER_DETAIL_CONCAT2(a, b) a##b
#define EMBER_DETAIL_CONCAT(a, b) EMBER_DETAIL_CONCAT2(a, b)
/// Makes a stateful UDF class constructible by name in worker processes and MPI ranks.
/// Use at namespace scope in a .cpp file of the binary that runs the query.
#define EMBER_REGISTER_UDF(ClassName)                                                     \
  static const bool EMBER_DETAIL_CONCAT(ember_udf_registered_, __LINE__) =                \
      ::ember::detail::register_udf_class(#ClassName, std::type_index(typeid(ClassName)), \
                                          ::ember::detail::make_factory<ClassName>())

/// Makes a stateless UDF's function (a plain function `ember::Column f(const ember::Batch&)`)
/// known by name to every process of the program, so that a query calling `Udf::fn(name, f)` is
/// spread over the ranks of a cluster instead of staying on rank 0 (a lambda or a std::function
/// holding state cannot travel). Use at namespace scope in a .cpp file of the binary that runs
/// the query.
#define EMBER_REGISTER_FN(function)                                       \
  static const bool EMBER_DETAIL_CONCAT(ember_fn_registered_, __LINE__) = \
      ::ember::detail::register_udf_function(                             \
          #function, static_cast<::ember::detail::UdfFunctionPointer>(&function))

class Udf;
namespace detail {
struct UdfAccess;
/// The expression calling `udf` on `args`: what Udf::operator() builds. InvalidArgument if the
/// UDF has no return type.
Expr call_udf(const Udf& udf, std::vector<Expr> args);
}  // namespace detail

/// Immutable builder for a UDF. Every setter validates its argument (InvalidArgument) and
/// returns a changed copy.
class Udf {
 public:
  /// A stateful UDF: class T, constructed once per actor.
  template <class T>
  static Udf cls(std::string name) {
    return make_stateful(std::move(name), detail::make_factory<T>(),
                         detail::registered_udf_name(std::type_index(typeid(T))));
  }
  /// A stateless function, run inline by the pipeline threads. A plain function registered
  /// with EMBER_REGISTER_FN also runs on every rank of a cluster.
  static Udf fn(std::string name, std::function<Column(const Batch&)> f);

  /// The type of the column each call returns (not Null). Calling a UDF without one is an
  /// InvalidArgument.
  Udf returns(DataType type) const;
  /// What every actor's constructor receives (stateful only).
  Udf init_args(InitArgs args) const;
  /// Each call gets at most `rows` rows (the last of a partition may get fewer). Default 4096.
  Udf batch_size(int64_t rows) const;
  /// Actors in the pool (stateful only). Default 1.
  Udf concurrency(int actors) const;
  /// An autoscaling pool: starts (and reserves at admission) `min_actors`, grows up to
  /// `max_actors` while batches wait for an actor and the resources are free, and destroys
  /// actors that sit idle, down to `min_actors` (1 <= min <= max).
  Udf concurrency(int min_actors, int max_actors) const;
  /// CPUs each actor reserves. Unset, a stateful UDF reserves none (its actors share the
  /// machine with the pipeline threads), so concurrency() alone never fails admission.
  Udf num_cpus(double cpus) const;
  /// Fractions in (0,1] share a device; above 1 must be a whole number.
  Udf num_gpus(double gpus) const;
  /// Memory each actor reserves (>= 0). Default 0.
  Udf memory_bytes(int64_t bytes) const;
  /// Where each actor runs (stateful only). Default Isolation::Thread.
  Udf isolation(Isolation iso) const;
  /// Re-runs of a batch whose call failed: it threw, ran past timeout(), or its worker process
  /// died. Default 0. Each re-run waits out retry_backoff (or the RetryAfter it threw); a dead
  /// worker is replaced at the actor's next call. Output order and rows never change.
  Udf max_retries(int retries) const;
  /// Waits between retries of a thrown call: `initial`, doubling up to `max`, each with jitter
  /// (between half and all of it). Default 100 ms -> 10 s.
  Udf retry_backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max) const;
  /// What a batch whose retries are spent does. Under Null and Skip the batch is split in
  /// (up to) 8 pieces, recursively down to single rows, so only the rows whose own call fails
  /// are nulled or dropped; each lands in QueryResult::rejected. After a failure, the batches
  /// that follow go to the UDF in smaller pieces for a while (docs/failure-handling.md), so it
  /// may see fewer rows than batch_size. Default Raise.
  Udf on_error(OnError policy) const;
  /// Under Null or Skip: once more than `rows` rows have failed, the query fails with
  /// UdfError. Default: no limit.
  Udf max_failed_rows(int64_t rows) const;
  /// Bounds each call (> 0). A call past it fails (retries, isolation and on_error apply) and
  /// counts in UdfStats::timeouts. A process actor's worker is killed (SIGKILL) and a fresh one
  /// constructed; a thread actor, which cannot be killed, is retired: its thread is left to
  /// finish the call on its own and a fresh actor is constructed in its place. Default: none.
  Udf timeout(std::chrono::milliseconds limit) const;
  /// Calls one actor serves at once (>= 1); the UDF's operator() must then be thread-safe.
  /// Construction stays once per actor. Default 1. A process actor's worker serves them on
  /// threads of its own.
  Udf max_concurrency(int calls_per_actor) const;

  /// Calls the UDF on argument expressions; the result is an expression of type `returns`.
  template <class... E>
  Expr operator()(E&&... args) const {
    return detail::call_udf(*this, std::vector<Expr>{Expr(std::forward<E>(args))...});
  }

  /// The name given to cls() or fn().
  const std::string& name() const;

 private:
  friend struct detail::UdfAccess;
  struct Spec;  // the settings, defined inside the library
  explicit Udf(std::shared_ptr<const Spec> spec) : spec_(std::move(spec)) {}
  static Udf make_stateful(std::string name, detail::UdfFactory factory, std::string class_name);
  template <class F>
  Udf with(F&& change) const;
  std::shared_ptr<const Spec> spec_;
};

}  // namespace ember
