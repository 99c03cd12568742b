// Ranged GETs, merged and sent concurrently for a scan's column chunks.
#include "io/storage/remote_object.h"

#include <algorithm>
#include <future>

#include "ember/error.h"
#include "io/storage/storage_error.h"

namespace ember {

RemoteObject::RemoteObject(const StorageUrl& url, const StorageOptions& storage, int64_t known_size)
    : url_(url) {
  if (url_.scheme == StorageUrl::Scheme::S3) s3_ = resolve_s3_config(storage);
  size_ = known_size >= 0 ? known_size : ask_size();
}

HttpRequest RemoteObject::request(const std::string& method) const {
  HttpRequest r;
  r.method = method;
  r.label = url_.text;
  if (s3_) {
    r.url = s3_->object_url(url_.bucket, url_.key);
    r.sign = &*s3_;
  } else {
    r.url = url_.url;
  }
  return r;
}

int64_t RemoteObject::ask_size() const {
  if (s3_ && url_.key.empty())
    throw IoError("'" + url_.text + "' names a bucket, not an object (s3://bucket/key)");
  HttpResponse head = HttpClient::instance().send(request("HEAD"));
  if (!head.ok()) {
    // A HEAD answer has no body: a GET brings the server's explanation (NoSuchBucket, ...).
    HttpRequest get = request("GET");
    get.range_size = 1;
    const HttpResponse answer = HttpClient::instance().send(get);
    throw_storage_error("open", url_.text, answer.ok() ? head : answer);
  }
  const std::string length = head.header("content-length");
  try {
    return std::stoll(length);
  } catch (const std::exception&) {
    throw IoError("cannot open '" + url_.text + "': the server gave no size (Content-Length '" +
                  length + "')");
  }
}

size_t RemoteObject::read_at(char* out, size_t size, int64_t offset) const {
  if (offset >= size_ || size == 0) return 0;
  HttpRequest r = request("GET");
  r.range_begin = offset;
  r.range_size = std::min<int64_t>(static_cast<int64_t>(size), size_ - offset);
  r.into = out;
  const HttpResponse answer = HttpClient::instance().send(r);
  if (!answer.ok()) throw_storage_error("read", url_.text, answer);
  return static_cast<size_t>(answer.bytes_into);
}

std::vector<std::string> RemoteObject::read_ranges(const std::vector<ByteRange>& ranges,
                                                   const char* what) const {
  // Merge ranges in file order; each merged request covers some of the asked ranges.
  std::vector<size_t> order(ranges.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return ranges[a].offset < ranges[b].offset; });
  std::vector<ByteRange> merged;
  std::vector<size_t> merged_of(ranges.size());
  for (const size_t i : order) {
    const ByteRange& r = ranges[i];
    if (!merged.empty()) {
      ByteRange& m = merged.back();
      const int64_t end = std::max(m.offset + m.size, r.offset + r.size);
      if (r.offset <= m.offset + m.size + kMergeGap && end - m.offset <= kMaxMergedBytes) {
        m.size = end - m.offset;
        merged_of[i] = merged.size() - 1;
        continue;
      }
    }
    merged.push_back(r);
    merged_of[i] = merged.size() - 1;
  }
  // At most kRequestsInFlight at once: a wide table far apart is many requests.
  std::vector<std::string> bytes;
  for (size_t first = 0; first < merged.size(); first += kRequestsInFlight) {
    std::vector<std::future<std::string>> pending;
    for (size_t i = first; i < std::min(merged.size(), first + kRequestsInFlight); ++i)
      pending.push_back(std::async(std::launch::async, [this, m = merged[i], what] {
        return read(m.offset, m.size, what);
      }));
    for (auto& p : pending) bytes.push_back(p.get());
  }
  std::vector<std::string> out;
  out.reserve(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const ByteRange& m = merged[merged_of[i]];
    out.push_back(bytes[merged_of[i]].substr(static_cast<size_t>(ranges[i].offset - m.offset),
                                             static_cast<size_t>(ranges[i].size)));
  }
  return out;
}

}  // namespace ember
