// A small table written in every format, uploaded, read back and checked row by row.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "ember/ember.h"
#include "storage_servers.h"

namespace ember::testing_storage {

/// Rows id = first..first+n-1, x = id * 3, s = "v<id>", in `parts` partitions.
inline DataFrame test_rows(int64_t first, int64_t n, int parts) {
  return range(n, parts)
      .with_column("id", col("id") + first)
      .with_column("x", col("id") * 3)
      .with_column("s", concat({lit("v"), col("id").cast(utf8())}));
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Uploads every file of local directory `dir` (but _SUCCESS) to s3://bucket/prefix<name>;
/// returns how many.
inline int upload_dir(const S3Server& s3, const std::string& dir, const std::string& bucket,
                      const std::string& prefix) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name[0] == '_' || name[0] == '.') continue;
    s3.put(bucket, prefix + name, read_bytes(e.path().string()));
    ++n;
  }
  return n;
}

/// Checks `t` holds exactly the rows first..first+n-1 of test_rows (in any order).
inline void expect_rows(const Table& t, int64_t first, int64_t n) {
  ASSERT_EQ(t.num_rows(), n);
  std::vector<int> seen(static_cast<size_t>(n), 0);
  int64_t wrong = 0;
  std::string first_wrong;
  const Column ids = t.column("id"), xs = t.column("x"), ss = t.column("s");
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = std::get<int64_t>(ids.get(i));
    const bool ok = id >= first && id < first + n && xs.get(i) == Value(int64_t{id * 3}) &&
                    ss.get(i) == Value(std::string("v") + std::to_string(id));
    if (ok) ++seen[static_cast<size_t>(id - first)];
    if (!ok && wrong++ == 0)
      first_wrong = "row " + std::to_string(i) + " (id " + std::to_string(id) + ")";
  }
  EXPECT_EQ(wrong, 0) << "first wrong: " << first_wrong;
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), n) << "every id exactly once";
}

/// The message of the `E` that `f` throws ("" when it throws nothing).
template <class E = Error, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

/// Sets an environment variable ("" unsets it) for the life of this object.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    const char* old = std::getenv(name_.c_str());
    if (old) old_ = old;
    had_ = old != nullptr;
    if (value.empty()) {
      ::unsetenv(name_.c_str());
    } else {
      ::setenv(name_.c_str(), value.c_str(), 1);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_.c_str(), old_.c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

/// A scratch directory removed when the test ends.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ember-st-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace ember::testing_storage
