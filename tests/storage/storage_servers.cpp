// Starting and stopping the test servers.
#include "storage_servers.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "io/storage/http_client.h"
#include "io/storage/s3_config.h"

namespace ember::testing_storage {
namespace {

bool can_connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

/// Waits up to 10 s for a server `what` to listen on `port`; throws if it never does, so that
/// a test fails saying so rather than on its first request.
void wait_for_port(int port, const std::string& what) {
  for (int i = 0; i < 200; ++i) {
    if (can_connect(port)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error(what + " did not listen on port " + std::to_string(port) + " in 10 s");
}

std::string json_number(const std::string& json, const std::string& name) {
  const size_t at = json.find("\"" + name + "\":");
  if (at == std::string::npos) throw std::runtime_error("no " + name + " in " + json);
  return json.substr(at + name.size() + 3, json.find_first_of(",}", at) - at - name.size() - 3);
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, bool read_first_line) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);
    ::dup2(in[0], 0);
    if (read_first_line) {
      ::dup2(out[1], 1);
    } else {
      const int quiet = ::open("/dev/null", O_WRONLY);  // a server's request log
      ::dup2(quiet, 1);
      ::dup2(quiet, 2);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  stdin_fd_ = in[1];
  if (read_first_line) {
    char c;
    while (::read(out[0], &c, 1) == 1 && c != '\n') first_line_ += c;
  }
  ::close(out[0]);
}

ChildProcess::~ChildProcess() {
  ::close(stdin_fd_);  // s3_server.mjs ends when its stdin closes
  ::kill(pid_, SIGTERM);
  int status = 0;
  ::waitpid(pid_, &status, 0);
}

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    throw std::runtime_error("no free port");
  ::close(fd);
  return ntohs(a.sin_port);
}

S3Server::S3Server(const std::string& npm_dir) {
  if (!std::filesystem::exists(npm_dir + "/node_modules/s3rver")) return;
  std::string tmpl = (std::filesystem::temp_directory_path() / "ember-s3-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp");
  dir_ = tmpl;
  const std::string node = "/usr/bin/env";
  child_ =
      new ChildProcess({node, "node", "--openssl-legacy-provider",
                        EMBER_STORAGE_TEST_DIR "/s3_server.mjs", npm_dir, dir_, "data", "empty"},
                       true);
  s3_port_ = std::stoi(json_number(child_->first_line(), "s3"));
  proxy_port_ = std::stoi(json_number(child_->first_line(), "proxy"));
}

S3Server::~S3Server() {
  delete child_;
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

StorageOptions S3Server::options() const {
  StorageOptions o;
  o.endpoint_url = "http://127.0.0.1:" + std::to_string(proxy_port_);
  o.region = "us-east-1";
  o.access_key_id = "S3RVER";  // the key pair s3rver accepts
  o.secret_access_key = "S3RVER";
  return o;
}

std::string S3Server::control(const std::string& query) const {
  return http_get("http://127.0.0.1:" + std::to_string(proxy_port_) + "/__control?" + query);
}

void S3Server::put(const std::string& bucket, const std::string& key,
                   const std::string& bytes) const {
  const S3Config config = resolve_s3_config(options());
  HttpRequest r;
  r.method = "PUT";
  r.url = config.object_url(bucket, key);
  r.body = bytes;
  r.sign = &config;
  const HttpResponse answer = HttpClient::instance().send(r);
  if (!answer.ok())
    throw std::runtime_error("PUT " + key + ": " + std::to_string(answer.status) + " " +
                             answer.body);
}

HttpFileServer::HttpFileServer(const std::string& dir)
    : port_(free_loopback_port()),
      child_({"/usr/bin/python3", "-m", "http.server", std::to_string(port_), "--bind", "127.0.0.1",
              "--directory", dir},
             false) {
  wait_for_port(port_, "python3 -m http.server");
}

std::string HttpFileServer::url(const std::string& name) const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/" + name;
}

namespace {

/// A self-signed certificate for 127.0.0.1 (cert.pem, key.pem) in `dir`, made by openssl.
std::string make_certificate(const std::string& dir) {
  const std::string cert = dir + "/cert.pem", key = dir + "/key.pem";
  const std::string command =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1"
      " -nodes -days 2 -subj /CN=127.0.0.1"
      " -addext subjectAltName=IP:127.0.0.1 -keyout '" +
      key + "' -out '" + cert + "' 2>/dev/null";
  if (std::system(command.c_str()) != 0)
    throw std::runtime_error("openssl could not make a certificate");
  return cert;
}

constexpr char kHttpsServer[] = R"(
import functools, http.server, ssl, sys
port, directory, cert, key = sys.argv[1:5]
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=directory)
server = http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
)";

}  // namespace

HttpsFileServer::HttpsFileServer(const std::string& dir, const std::string& work_dir)
    : certificate_(make_certificate(work_dir)),
      port_(free_loopback_port()),
      child_({"/usr/bin/python3", "-c", kHttpsServer, std::to_string(port_), dir, certificate_,
              work_dir + "/key.pem"},
             false) {
  wait_for_port(port_, "the HTTPS file server");
}

std::string HttpsFileServer::url(const std::string& name) const {
  return "https://127.0.0.1:" + std::to_string(port_) + "/" + name;
}

std::string http_get(const std::string& url) {
  HttpRequest r;
  r.url = url;
  return HttpClient::instance().send(r).body;
}

}  // namespace ember::testing_storage
