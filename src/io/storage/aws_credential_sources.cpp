// The credential sources behind the profile files: a command's JSON, a container endpoint's
// JSON, and the instance metadata service's token, role and JSON. Each answer is cached by the
// source it came from until shortly before it expires.
#include "io/storage/aws_credential_sources.h"

#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <map>
#include <mutex>
#include <pugixml.hpp>
#include <sstream>

#include "ember/error.h"
#include "io/storage/http_client.h"
#include "io/storage/s3_config.h"
#include "io/storage/storage_error.h"

namespace ember {

namespace {

using Clock = std::chrono::system_clock;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

/// Credentials and when they expire (max(): never).
struct Cached {
  AwsCredentials credentials;
  Clock::time_point expires = Clock::time_point::max();
};

/// "2026-12-06T10:00:00Z" as a time; max() when absent or unreadable (kept for the process).
Clock::time_point parse_expiration(const std::string& text) {
  std::tm tm{};
  std::istringstream in(text);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return Clock::time_point::max();
  return Clock::from_time_t(timegm(&tm));
}

/// The credentials in a source's JSON answer: AccessKeyId, SecretAccessKey, and Token (the
/// container and instance services) or SessionToken (credential_process), Expiration.
Cached parse_credentials(const std::string& json, const std::string& source) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc) != simdjson::SUCCESS || !doc.is_object())
    throw IoError("credentials from " + source +
                  ": the answer is not a JSON object: " + json.substr(0, 200));
  auto field = [&](const char* name) {
    std::string_view v;
    return doc[name].get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
  };
  Cached c;
  c.credentials.access_key_id = field("AccessKeyId");
  c.credentials.secret_access_key = field("SecretAccessKey");
  c.credentials.session_token = field("Token");
  if (c.credentials.session_token.empty()) c.credentials.session_token = field("SessionToken");
  if (c.credentials.access_key_id.empty() || c.credentials.secret_access_key.empty())
    throw IoError("credentials from " + source +
                  ": the answer has no AccessKeyId and SecretAccessKey: " + json.substr(0, 200));
  c.expires = parse_expiration(field("Expiration"));
  return c;
}

/// Runs `command` with /bin/sh; its stdout, or IoError with its status and stderr's end.
Cached run_credential_process(const std::string& command) {
  const std::string source = "credential_process '" + command + "'";
  FILE* out = ::popen((command + " 2>&1").c_str(), "r");
  if (!out) throw IoError("credentials from " + source + ": cannot start it");
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, out)) > 0;) text.append(buffer, n);
  const int status = ::pclose(out);
  if (status != 0) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    throw IoError("credentials from " + source + ": it exited with status " + std::to_string(code) +
                  ": " + trimmed(text.substr(0, 500)));
  }
  return parse_credentials(text, source);
}

HttpResponse ask(const HttpRequest& request) {
  RetryPolicy policy;
  policy.max_attempts = 3;
  return HttpClient::instance().send(request, policy);
}

Cached container_credentials(const std::string& uri) {
  HttpRequest r;
  r.url = uri;
  r.label = "the container credentials endpoint " + uri;
  std::string token = env("AWS_CONTAINER_AUTHORIZATION_TOKEN");
  if (const std::string file = env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"); !file.empty()) {
    std::ifstream in(file);
    std::getline(in, token);
  }
  if (!token.empty()) r.headers.push_back("Authorization: " + trimmed(token));
  const HttpResponse answer = ask(r);
  if (!answer.ok())
    throw IoError("credentials from " + r.label + ": it answered " + std::to_string(answer.status) +
                  " " + trimmed(answer.body.substr(0, 200)));
  return parse_credentials(answer.body, r.label);
}

/// The instance role's credentials through IMDSv2 (a session token first; an instance that
/// refuses one is asked without, as IMDSv1). nullopt when the instance has no role.
std::optional<Cached> instance_credentials(std::string endpoint) {
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  const std::string source = "the instance metadata service " + endpoint;
  HttpRequest put;
  put.method = "PUT";
  put.url = endpoint + "/latest/api/token";
  put.label = source;
  put.headers.push_back("X-aws-ec2-metadata-token-ttl-seconds: 21600");
  const HttpResponse token = ask(put);
  HttpRequest get;
  get.label = source;
  if (token.ok()) get.headers.push_back("X-aws-ec2-metadata-token: " + trimmed(token.body));
  get.url = endpoint + "/latest/meta-data/iam/security-credentials/";
  const HttpResponse roles = ask(get);
  if (roles.status == 404) return std::nullopt;  // no role attached
  if (!roles.ok())
    throw IoError("credentials from " + source + ": the role list answered " +
                  std::to_string(roles.status));
  const std::string role = trimmed(roles.body.substr(0, roles.body.find('\n')));
  if (role.empty()) return std::nullopt;
  get.url += role;
  const HttpResponse answer = ask(get);
  if (!answer.ok())
    throw IoError("credentials from " + source + ": role '" + role + "' answered " +
                  std::to_string(answer.status));
  return parse_credentials(answer.body, source + " (role '" + role + "')");
}

/// STS's endpoint: AWS_ENDPOINT_URL_STS, else AWS_ENDPOINT_URL (an S3-compatible store with
/// its own STS, as MinIO has), else the region's.
std::string sts_endpoint() {
  for (const char* name : {"AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL"})
    if (std::string e = env(name); !e.empty()) return normalized_endpoint(std::move(e));
  std::string region = env("AWS_REGION");
  if (region.empty()) region = env("AWS_DEFAULT_REGION");
  return "https://sts." + (region.empty() ? std::string("us-east-1") : region) + ".amazonaws.com";
}

/// The role's credentials from STS AssumeRoleWithWebIdentity, with the OIDC token of
/// AWS_WEB_IDENTITY_TOKEN_FILE (as Kubernetes service accounts, EKS IRSA and GitHub Actions
/// provide it; the request needs no signature).
Cached web_identity_credentials(const std::string& role_arn) {
  const std::string file = env("AWS_WEB_IDENTITY_TOKEN_FILE");
  const std::string what =
      "the web identity token file '" + file + "' (AWS_WEB_IDENTITY_TOKEN_FILE)";
  std::ifstream in(file);
  if (!in) throw IoError("credentials for role '" + role_arn + "': cannot open " + what);
  const std::string token =
      trimmed(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
  if (token.empty())
    throw IoError("credentials for role '" + role_arn + "': " + what + " is empty");
  std::string session = env("AWS_ROLE_SESSION_NAME");
  if (session.empty()) session = "ember-" + std::to_string(::getpid());
  HttpRequest r;
  r.method = "POST";
  r.url = sts_endpoint() + "/";
  r.label = "STS at " + r.url;
  r.headers.push_back("Content-Type: application/x-www-form-urlencoded");
  r.body =
      "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=" + uri_encode(role_arn, false) +
      "&RoleSessionName=" + uri_encode(session, false) +
      "&WebIdentityToken=" + uri_encode(token, false);
  const std::string source = r.label + " (AssumeRoleWithWebIdentity, role '" + role_arn + "')";
  const HttpResponse answer = ask(r);
  if (!answer.ok())
    throw IoError("credentials from " + source + ": it answered " + describe_answer(answer));
  pugi::xml_document doc;
  const bool parsed = doc.load_buffer(answer.body.data(), answer.body.size());
  const pugi::xml_node creds = doc.child("AssumeRoleWithWebIdentityResponse")
                                   .child("AssumeRoleWithWebIdentityResult")
                                   .child("Credentials");
  Cached c;
  c.credentials.access_key_id = creds.child_value("AccessKeyId");
  c.credentials.secret_access_key = creds.child_value("SecretAccessKey");
  c.credentials.session_token = creds.child_value("SessionToken");
  if (!parsed || c.credentials.access_key_id.empty() || c.credentials.secret_access_key.empty())
    throw IoError(
        "credentials from " + source +
        ": the answer has no AccessKeyId and SecretAccessKey: " + answer.body.substr(0, 200));
  c.expires = parse_expiration(creds.child_value("Expiration"));
  return c;
}

/// True when the machine's firmware says it is an EC2 instance.
bool on_ec2() {
  for (const char* f :
       {"/sys/devices/virtual/dmi/id/sys_vendor", "/sys/devices/virtual/dmi/id/board_vendor"}) {
    std::ifstream in(f);
    std::string vendor;
    std::getline(in, vendor);
    if (vendor.rfind("Amazon EC2", 0) == 0) return true;
  }
  return false;
}

/// The source that applies, as a key of the cache ("" when none).
std::string applicable_source(const std::string& credential_process) {
  if (const std::string role = env("AWS_ROLE_ARN");
      !role.empty() && !env("AWS_WEB_IDENTITY_TOKEN_FILE").empty())
    return "webidentity:" + role;
  if (!credential_process.empty()) return "process:" + credential_process;
  if (const std::string full = env("AWS_CONTAINER_CREDENTIALS_FULL_URI"); !full.empty())
    return "container:" + full;
  if (const std::string rel = env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"); !rel.empty())
    return "container:http://169.254.170.2" + rel;
  std::string disabled = env("AWS_EC2_METADATA_DISABLED");
  for (char& ch : disabled) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (disabled == "true") return "";
  if (const std::string endpoint = env("AWS_EC2_METADATA_SERVICE_ENDPOINT"); !endpoint.empty())
    return "imds:" + endpoint;
  return on_ec2() ? "imds:http://169.254.169.254" : "";
}

}  // namespace

std::optional<AwsCredentials> credentials_from_sources(const std::string& credential_process) {
  const std::string source = applicable_source(credential_process);
  if (source.empty()) return std::nullopt;
  static std::mutex mu;
  static std::map<std::string, std::optional<Cached>> cache;
  // One asker at a time: a query's readers resolve together, and the service is asked once.
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(source);
  const auto now = Clock::now();
  if (it != cache.end() && (!it->second || it->second->expires == Clock::time_point::max() ||
                            it->second->expires - std::chrono::minutes(5) > now)) {
    if (!it->second) return std::nullopt;
    return it->second->credentials;
  }
  std::optional<Cached> got;
  const std::string what = source.substr(source.find(':') + 1);
  if (source.rfind("webidentity:", 0) == 0) {
    got = web_identity_credentials(what);
  } else if (source.rfind("process:", 0) == 0) {
    got = run_credential_process(what);
  } else if (source.rfind("container:", 0) == 0) {
    got = container_credentials(what);
  } else {
    got = instance_credentials(what);
  }
  cache[source] = got;
  if (!got) return std::nullopt;
  return got->credentials;
}

}  // namespace ember
