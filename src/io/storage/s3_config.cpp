// AWS_* variables and the INI profile files (~/.aws/credentials, ~/.aws/config).
#include "io/storage/s3_config.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>

#include "ember/error.h"
#include "io/storage/aws_credential_sources.h"

namespace ember {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

/// The keys of section `section` of an INI file (empty when the file or section is missing).
std::map<std::string, std::string> ini_section(const std::string& file,
                                               const std::string& section) {
  std::map<std::string, std::string> out;
  std::ifstream in(file);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      inside = trim(line.substr(1, line.size() - 2)) == section;
      continue;
    }
    const size_t eq = line.find('=');
    if (inside && eq != std::string::npos)
      out[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
  }
  return out;
}

std::string aws_file(const char* variable, const char* name) {
  std::string path = env(variable);
  if (!path.empty()) return path;
  const std::string home = env("HOME");
  return home.empty() ? "" : home + "/.aws/" + name;
}

std::string first_of(std::initializer_list<std::string> values) {
  for (const std::string& v : values)
    if (!v.empty()) return v;
  return "";
}

}  // namespace

std::string uri_encode(const std::string& text, bool keep_slash) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

std::string S3Config::object_url(const std::string& bucket, const std::string& key,
                                 const std::string& query) const {
  std::string url;
  if (path_style) {
    url = endpoint + "/" + bucket + "/" + uri_encode(key, true);
  } else {
    const size_t host = endpoint.find("://") + 3;
    url = endpoint.substr(0, host) + bucket + "." + endpoint.substr(host) + "/" +
          uri_encode(key, true);
  }
  return query.empty() ? url : url + "?" + query;
}

S3Config resolve_s3_config(const StorageOptions& options) {
  if (options.max_connections < 1)
    throw InvalidArgument("StorageOptions::max_connections must be >= 1, got " +
                          std::to_string(options.max_connections));
  const std::string profile = first_of({env("AWS_PROFILE"), "default"});
  const auto credentials =
      ini_section(aws_file("AWS_SHARED_CREDENTIALS_FILE", "credentials"), profile);
  const auto config = ini_section(aws_file("AWS_CONFIG_FILE", "config"),
                                  profile == "default" ? "default" : "profile " + profile);
  auto from_files = [&](const std::string& key) {
    auto it = credentials.find(key);
    if (it != credentials.end()) return it->second;
    it = config.find(key);
    return it == config.end() ? std::string() : it->second;
  };
  S3Config c;
  c.max_connections = options.max_connections;
  c.region = first_of({options.region, env("AWS_REGION"), env("AWS_DEFAULT_REGION"),
                       from_files("region"), "us-east-1"});
  if (!options.access_key_id.empty()) {
    c.access_key_id = options.access_key_id;
    c.secret_access_key = options.secret_access_key;
    c.session_token = options.session_token;
  } else if (!env("AWS_ACCESS_KEY_ID").empty()) {
    c.access_key_id = env("AWS_ACCESS_KEY_ID");
    c.secret_access_key = env("AWS_SECRET_ACCESS_KEY");
    c.session_token = env("AWS_SESSION_TOKEN");
  } else {
    c.access_key_id = from_files("aws_access_key_id");
    c.secret_access_key = from_files("aws_secret_access_key");
    c.session_token = from_files("aws_session_token");
    if (c.access_key_id.empty()) {
      if (auto got = credentials_from_sources(from_files("credential_process"))) {
        c.access_key_id = got->access_key_id;
        c.secret_access_key = got->secret_access_key;
        c.session_token = got->session_token;
      }
    }
  }
  if (!c.access_key_id.empty() && c.secret_access_key.empty())
    throw InvalidArgument("S3 access key '" + c.access_key_id +
                          "' has no secret access key (StorageOptions::secret_access_key, "
                          "AWS_SECRET_ACCESS_KEY or aws_secret_access_key in the profile)");
  std::string endpoint = first_of({options.endpoint_url, env("AWS_ENDPOINT_URL_S3"),
                                   env("AWS_ENDPOINT_URL"), from_files("endpoint_url")});
  c.path_style = !endpoint.empty();
  if (endpoint.empty()) endpoint = "https://s3." + c.region + ".amazonaws.com";
  c.endpoint = normalized_endpoint(std::move(endpoint));
  return c;
}

std::string normalized_endpoint(std::string endpoint) {
  if (endpoint.find("://") == std::string::npos) endpoint = "https://" + endpoint;
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  return endpoint;
}

}  // namespace ember
