/// \file
/// Sessions: actor pools kept warm across queries, so a UDF is constructed once per session.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ember {

/// How a Session keeps its pools.
struct SessionOptions {
  /// A warm pool nobody has used for this long is destroyed and its resources released.
  std::chrono::milliseconds idle_timeout{60000};
};

/// One UDF's warm actors in a session (SessionStats::udfs).
struct SessionUdfStats {
  std::string name;  ///< the UDF's name
  /// Actors alive now: idle and warm, or serving a query (`busy_actors` of them).
  ///@{
  int actors = 0, busy_actors = 0;
  ///@}
  /// Constructions in this session (a replaced worker counts again), and queries that found
  /// a warm pool instead of constructing one.
  ///@{
  int64_t inits = 0, reuses = 0;
  ///@}
  /// Actors destroyed so far: idle past idle_timeout, failed, or at close().
  int64_t destroyed_actors = 0;
  /// What the live actors hold in the resource ledger.
  ///@{
  double held_cpus = 0, held_gpus = 0;
  int64_t held_memory_bytes = 0;
  ///@}
};

/// A session's warm actors and what they cost (Session::stats).
struct SessionStats {
  std::vector<SessionUdfStats> udfs;  ///< one per UDF the session has constructed
  int actors = 0;                     ///< actors alive now, over all UDFs
  /// SessionUdfStats' figures of the same names, summed over the UDFs.
  ///@{
  int64_t inits = 0, reuses = 0, destroyed_actors = 0;
  ///@}
};

class Session;
namespace detail {
struct SessionAccess;
}  // namespace detail

/// Keeps actors warm across queries. A query run with RunOptions::session borrows a warm pool
/// of a UDF with the same class, name, init args, resources, isolation and pool settings
/// instead of constructing one, and gives it back when it ends; a pool is lent to one query
/// at a time. Warm actors hold their resources until they are destroyed: after idle_timeout
/// unused, when they fail, or at close(). Thread-safe; neither copyable nor movable (queries
/// refer to it by pointer). Destroying it closes it.
class Session {
 public:
  /// InvalidArgument for a negative idle_timeout.
  explicit Session(SessionOptions options = {});
  /// Closes the session: close().
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Destroys every idle actor now and every busy one when its query ends; later queries in
  /// this session run as without one. Idempotent.
  void close();
  /// Warm actors per UDF, constructions, reuses, and what they hold.
  SessionStats stats() const;

 private:
  friend struct detail::SessionAccess;
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace ember
