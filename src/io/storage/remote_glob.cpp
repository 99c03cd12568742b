// Globs over S3 keys: one listing under the pattern's fixed prefix, matched with fnmatch(3).
#include "io/storage/remote_glob.h"

#include <fnmatch.h>

#include "ember/error.h"
#include "io/storage/remote_object.h"
#include "io/storage/s3_listing.h"

namespace ember {
namespace {

std::string last_part(const std::string& key) {
  const size_t slash = key.rfind('/');
  return slash == std::string::npos ? key : key.substr(slash + 1);
}

bool hidden(const std::string& name) { return !name.empty() && (name[0] == '_' || name[0] == '.'); }

}  // namespace

std::vector<RemoteFile> expand_remote(const StorageUrl& url, const StorageOptions& storage) {
  if (url.scheme == StorageUrl::Scheme::Http) {
    const RemoteObject object(url, storage);
    return {RemoteFile{url.text, object.size()}};
  }
  const size_t wildcard = url.key.find_first_of("*?[");
  const bool listing = wildcard != std::string::npos || url.key.empty() || url.key.back() == '/';
  if (!listing) {
    const RemoteObject object(url, storage);
    return {RemoteFile{url.text, object.size()}};
  }
  const S3Config config = resolve_s3_config(storage);
  const std::string prefix = url.key.substr(0, wildcard);
  const bool hidden_asked = hidden(last_part(url.key));
  std::vector<RemoteFile> out;
  for (const ListedObject& o : list_objects(config, url.bucket, prefix)) {
    if (!o.key.empty() && o.key.back() == '/') continue;  // a "folder" marker object
    if (!hidden_asked && hidden(last_part(o.key))) continue;
    if (wildcard != std::string::npos) {
      if (::fnmatch(url.key.c_str(), o.key.c_str(), FNM_PATHNAME) != 0) continue;
    } else if (o.key.find('/', prefix.size()) != std::string::npos) {
      continue;  // prefix/: the objects directly under it, as a directory's files
    }
    out.push_back(RemoteFile{s3_url(url.bucket, o.key), o.size});
  }
  if (out.empty()) throw IoError("no object matches '" + url.text + "'");
  return out;
}

}  // namespace ember
