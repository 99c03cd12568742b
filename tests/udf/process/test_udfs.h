// Stateful UDF classes the process-isolation tests run in worker processes (registered by name
// in test_udfs.cpp, so workers can construct them).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/buffer_access.h"
#include "ember/batch.h"
#include "ember/udf.h"
#include "worker_test_kit.h"

namespace ember::test {

/// abort() without leaving a core file behind (the crash is the point of the test).
[[noreturn]] inline void abort_quietly() {
  const rlimit none{0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
  std::abort();
}

/// x + 1 for an int64 column (nulls stay null).
inline Column plus_one(const Column& x) {
  std::vector<std::optional<int64_t>> out(static_cast<size_t>(x.size()));
  for (int64_t i = 0; i < x.size(); ++i) {
    if (!x.is_null(i)) out[static_cast<size_t>(i)] = x.value<int64_t>(i) + 1;
  }
  return Column::from(std::move(out));
}

inline Column repeat_text(const std::string& s, int64_t rows) {
  return Column::from(std::vector<std::string>(static_cast<size_t>(rows), s));
}

/// Reports facts about the worker it runs in, one utf8 value repeated on every row; which
/// fact comes from init arg "report": pid, constructions, cuda, ctx_gpus, ctx_actor.
class Probe {
 public:
  Probe(const InitArgs& a, const ActorContext& c) : report_(a.get<std::string>("report")), ctx_(c) {
    ++constructions;
  }
  Column operator()(const Batch& in) {
    std::string v;
    if (report_ == "pid") v = std::to_string(::getpid());
    if (report_ == "constructions") v = std::to_string(constructions);
    if (report_ == "cuda") {
      const char* e = std::getenv("CUDA_VISIBLE_DEVICES");
      v = e ? e : "<unset>";
    }
    if (report_ == "ctx_gpus") {
      // GCC 12 at -O3 reports a false -Wrestrict inside std::string's inlined insert for
      // "literal" + std::string (GCC bug 105651).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
      for (size_t i = 0; i < ctx_.gpu_ids.size(); ++i)
        v += (i ? "," : "") + std::to_string(ctx_.gpu_ids[i]);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    }
    if (report_ == "ctx_actor") v = std::to_string(ctx_.actor_id);
    return repeat_text(v, in.num_rows());
  }
  inline static int constructions = 0;

 private:
  std::string report_;
  ActorContext ctx_;
};

/// x + 1.
class AddOne {
 public:
  explicit AddOne(const InitArgs&) {}
  Column operator()(const Batch& in) { return plus_one(in.column(0)); }
};

/// Returns its argument column itself (the identity).
class Echo {
 public:
  explicit Echo(const InitArgs&) {}
  Column operator()(const Batch& in) { return in.column(0); }
};

/// Returns a fresh copy of its argument column (so the result crosses back through shared
/// memory, unlike Echo's).
class Reassemble {
 public:
  explicit Reassemble(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const Column& x = in.column(0);
    return Column::concat(
        {x.slice(0, x.size() / 2), x.slice(x.size() / 2, x.size() - x.size() / 2)});
  }
};

/// Returns its second argument column itself.
class PickSecond {
 public:
  explicit PickSecond(const InitArgs&) {}
  Column operator()(const Batch& in) { return in.column(1); }
};

/// struct<a: int64, b: utf8> to struct<b: utf8, a: int64> holding a + 1 (nulls stay null, the
/// struct's and the fields'): `b` and the struct's nulls are the argument's own buffers, `a` a
/// fresh column (in the result region once it is large), so the result crosses back copied.
class SwapFields {
 public:
  explicit SwapFields(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const Column& s = in.column(0);
    const Column& a = s.children()[0];  // unsliced: row i of `s` is row s.offset() + i
    std::vector<std::optional<int64_t>> plus_one(static_cast<size_t>(s.offset() + s.size()));
    for (int64_t r = s.offset(); r < s.offset() + s.size(); ++r)
      if (!a.is_null(r)) plus_one[static_cast<size_t>(r)] = a.value<int64_t>(r) + 1;
    return Column::nested(struct_({{"b", utf8()}, {"a", int64()}}), s.size(), s.null_count(),
                          s.validity_buffer(), {s.children()[1], Column::from(std::move(plus_one))},
                          s.offset());
  }
};

/// -x for an int64 column without nulls (a fresh result the size of its input).
class Negate {
 public:
  explicit Negate(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const Column& x = in.column(0);
    std::vector<int64_t> out(static_cast<size_t>(x.size()));
    const int64_t* v = x.values<int64_t>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = -v[i];
    return Column::from(std::move(out));
  }
};

/// abort()s on its first call ever (a marker file remembers it across processes), then x + 1.
class CrashOnce {
 public:
  explicit CrashOnce(const InitArgs& a) : marker_(a.get<std::string>("marker")) {}
  Column operator()(const Batch& in) {
    if (!std::filesystem::exists(marker_)) {
      std::ofstream(marker_) << "crashed";
      abort_quietly();
    }
    return plus_one(in.column(0));
  }

 private:
  std::string marker_;
};

/// Announces each call by writing its pid to <dir>/running, then waits (at most 60 s) for
/// <dir>/release to exist before returning x + 1: the test decides when a call may finish.
class Gate {
 public:
  explicit Gate(const InitArgs& a) : dir_(a.get<std::string>("dir")) {}
  Column operator()(const Batch& in) {
    write_file_atomically(dir_ + "/running", std::to_string(::getpid()));
    wait_for_file(dir_ + "/release");
    return plus_one(in.column(0));
  }

 private:
  std::string dir_;
};

/// abort()s on every call.
class AbortAlways {
 public:
  explicit AbortAlways(const InitArgs&) {}
  Column operator()(const Batch&) { abort_quietly(); }
};

/// Appends one line to the file <log> per construction ("start <pid>") and per call ("call
/// <first value of x>"), then segfaults on every call: a log of how many workers a query
/// started and which batches reached one.
class SegfaultLogging {
 public:
  explicit SegfaultLogging(const InitArgs& a) : log_(a.get<std::string>("log")) {
    append_line("start " + std::to_string(::getpid()));
  }
  Column operator()(const Batch& in) {
    append_line("call " + std::to_string(in.column(0).value<int64_t>(0)));
    const rlimit none{0, 0};
    ::setrlimit(RLIMIT_CORE, &none);
    ::signal(SIGSEGV, SIG_DFL);  // die of it even where a sanitizer installed a handler
    ::raise(SIGSEGV);
    abort_quietly();  // not reached: SIGSEGV's default action ends the process
  }

 private:
  /// One write() of a whole line to a file opened for appending: lines from several workers
  /// never interleave.
  void append_line(const std::string& line) {
    const std::string text = line + "\n";
    const int fd = ::open(log_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    [[maybe_unused]] ssize_t n = ::write(fd, text.data(), text.size());
    ::close(fd);
  }
  std::string log_;
};

/// A constructor that fails.
class FailingInit {
 public:
  explicit FailingInit(const InitArgs& a) {
    throw std::runtime_error("cannot open model file '" + a.get<std::string>("path") + "'");
  }
  Column operator()(const Batch& in) { return in.column(0); }
};

/// Throws from a call when any input is negative; otherwise x + 1.
class RejectNegative {
 public:
  explicit RejectNegative(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const Column& x = in.column(0);
    for (int64_t i = 0; i < x.size(); ++i) {
      if (x.value<int64_t>(i) < 0)
        throw std::invalid_argument("negative input at row " + std::to_string(i));
    }
    return plus_one(x);
  }
};

/// Writes a lot: init arg "lines" lines to stdout, then "blob" bytes without a newline to
/// stderr, then an unterminated tail on stdout; returns x + 1.
class Chatty {
 public:
  explicit Chatty(const InitArgs& a)
      : lines_(a.get<int64_t>("lines")), blob_(a.get<int64_t>("blob")) {}
  Column operator()(const Batch& in) {
    for (int64_t i = 0; i < lines_; ++i)
      std::printf("line %lld of chatter\n", static_cast<long long>(i));
    std::fflush(stdout);
    const std::string blob(static_cast<size_t>(blob_), 'b');
    std::fwrite(blob.data(), 1, blob.size(), stderr);
    std::fflush(stderr);
    std::fputs("tail-without-newline", stdout);
    std::fflush(stdout);
    return plus_one(in.column(0));
  }

 private:
  int64_t lines_, blob_;
};

/// Keeps every input column it was given and returns, for each row, the first value of the
/// column it got on the previous call (or its own input on the first): it reads old inputs
/// after the driver has sent newer batches.
class Hoarder {
 public:
  explicit Hoarder(const InitArgs&) {}
  Column operator()(const Batch& in) {
    kept_.push_back(in.column(0));
    const Column& prev = kept_.size() > 1 ? kept_[kept_.size() - 2] : kept_.back();
    std::vector<int64_t> out(static_cast<size_t>(in.num_rows()));
    for (int64_t i = 0; i < in.num_rows(); ++i)
      out[static_cast<size_t>(i)] = prev.value<int64_t>(i % prev.size());
    return Column::from(std::move(out));
  }

 private:
  std::vector<Column> kept_;
};

/// Writes its pid to <dir>/worker-<actor_id>.pid when constructed and <dir>/destroyed-<pid>
/// when destroyed.
class PidFile {
 public:
  PidFile(const InitArgs& a, const ActorContext& c) : dir_(a.get<std::string>("dir")) {
    write_file_atomically(dir_ + "/worker-" + std::to_string(c.actor_id) + ".pid",
                          std::to_string(::getpid()));
  }
  ~PidFile() { write_file_atomically(dir_ + "/destroyed-" + std::to_string(::getpid()), "bye"); }
  Column operator()(const Batch& in) {
    return repeat_text(std::to_string(::getpid()), in.num_rows());
  }

 private:
  std::string dir_;
};

/// Descriptors of this process that point at a memfd ("/memfd:name (deleted)").
inline int memfd_count() {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(e.path(), ec);
    if (!ec && target.string().rfind("/memfd:", 0) == 0) ++n;
  }
  return n;
}

/// -x, except that row 0 holds how many memfd descriptors the worker has open after building
/// the result (x must have no nulls and at least one row).
class NegateCountingMemfds {
 public:
  explicit NegateCountingMemfds(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const Column& x = in.column(0);
    std::vector<int64_t> out(static_cast<size_t>(x.size()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = -x.values<int64_t>()[i];
    out[0] = memfd_count();
    return Column::from(std::move(out));
  }
};

/// True when `p` lies in a mapping of this process whose name mentions `what`.
inline bool in_mapping_named(const void* p, const std::string& what) {
  std::ifstream maps("/proc/self/maps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  for (std::string line; std::getline(maps, line);) {
    if (line.find(what) == std::string::npos) continue;
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2 && at >= lo && at < hi) return true;
  }
  return false;
}

/// -x (no nulls, at least one row), except that row 0 says where the result was built: 1 in
/// the worker's shared result region, 0 elsewhere (the heap). With init arg "scratch" = 1 it
/// first builds and drops a scratch column as large as the result.
class NegateReportingPlace {
 public:
  explicit NegateReportingPlace(const InitArgs& a)
      : scratch_(a.has("scratch") && a.get<int64_t>("scratch") == 1) {}
  Column operator()(const Batch& in) {
    const Column& x = in.column(0);
    if (scratch_) Column::from(std::vector<int64_t>(static_cast<size_t>(x.size()), 1));
    std::vector<int64_t> out(static_cast<size_t>(x.size()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = -x.values<int64_t>()[i];
    Column c = Column::from(std::move(out));
    // Still ours alone: nothing else has seen the buffer yet.
    auto* values =
        reinterpret_cast<int64_t*>(detail::BufferAccess::mutable_data(*c.values_buffer()));
    values[0] = in_mapping_named(values, "memfd:ember-result") ? 1 : 0;
    return c;
  }

 private:
  bool scratch_;
};

/// Builds -x on every call but returns the column it built on the previous call (its own
/// first result on the first call): it keeps a result it built across calls, as a cache would.
/// Batches must all have the same length.
class Lagger {
 public:
  explicit Lagger(const InitArgs&) {}
  Column operator()(const Batch& in) {
    const Column& x = in.column(0);
    std::vector<int64_t> out(static_cast<size_t>(x.size()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = -x.values<int64_t>()[i];
    Column built = Column::from(std::move(out));
    Column previous = last_ ? *last_ : built;
    last_ = built;
    return previous;
  }

 private:
  std::optional<Column> last_;
};

/// SIGKILLs its own worker on its first call ever (a marker file remembers it across
/// processes), then x + 1: a death that happens within microseconds of the call.
class KillSelfOnce {
 public:
  explicit KillSelfOnce(const InitArgs& a) : marker_(a.get<std::string>("marker")) {}
  Column operator()(const Batch& in) {
    if (!std::filesystem::exists(marker_)) {
      std::ofstream(marker_) << "killed";
      ::kill(::getpid(), SIGKILL);
    }
    return plus_one(in.column(0));
  }

 private:
  std::string marker_;
};

}  // namespace ember::test
