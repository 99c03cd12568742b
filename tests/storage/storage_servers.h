// Servers the object storage tests start on loopback: npm s3rver behind a proxy that can
// answer 503 or drop connections on request (s3_server.mjs), and Python's http.server.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "ember/storage_options.h"

namespace ember::testing_storage {

/// A child process, killed (SIGTERM, then waited for) when this goes. It also dies with the
/// test process (PR_SET_PDEATHSIG), so a crashed test leaves no server behind.
class ChildProcess {
 public:
  /// Starts `argv`; with `read_first_line`, waits for and returns the child's first stdout
  /// line in first_line().
  ChildProcess(const std::vector<std::string>& argv, bool read_first_line);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  const std::string& first_line() const { return first_line_; }

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  std::string first_line_;
};

/// A port on 127.0.0.1 that was free a moment ago.
int free_loopback_port();

/// s3rver with buckets "data" and "empty", on a fresh directory, and its proxy.
class S3Server {
 public:
  /// Skips (returns with available() false) when npm s3rver is not installed in npm_dir.
  explicit S3Server(const std::string& npm_dir);
  ~S3Server();
  bool available() const { return child_ != nullptr; }
  /// Options that reach the server through the proxy (which checks signatures), with the
  /// key pair s3rver accepts.
  StorageOptions options() const;
  /// Makes the proxy answer 503 SlowDown to the next `slowdown` requests and drop the
  /// connection of the next `reset` ones (after those); returns its counters as JSON.
  std::string control(const std::string& query) const;
  /// Stores `bytes` as s3://bucket/key (a signed PUT).
  void put(const std::string& bucket, const std::string& key, const std::string& bytes) const;

 private:
  std::string dir_;
  ChildProcess* child_ = nullptr;
  int s3_port_ = 0, proxy_port_ = 0;
};

/// Python's http.server serving `dir` on 127.0.0.1.
class HttpFileServer {
 public:
  explicit HttpFileServer(const std::string& dir);
  std::string url(const std::string& name) const;

 private:
  int port_;
  ChildProcess child_;
};

/// The same over HTTPS, with a certificate for 127.0.0.1 made for it and signed by itself
/// (`certificate()`: the PEM file a client trusts to reach it).
class HttpsFileServer {
 public:
  HttpsFileServer(const std::string& dir, const std::string& work_dir);
  std::string url(const std::string& name) const;
  const std::string& certificate() const { return certificate_; }

 private:
  std::string certificate_;
  int port_;
  ChildProcess child_;
};

/// A plain GET of `url` (for the proxy's control endpoint): the body.
std::string http_get(const std::string& url);

}  // namespace ember::testing_storage
