// The ByteSource helpers common to every kind, and the choice between local and remote.
#include "io/byte_source.h"

#include "ember/error.h"
#include "io/file_range.h"
#include "io/storage/remote_object.h"
#include "io/storage/storage_url.h"

namespace ember {

std::string ByteSource::read(int64_t offset, int64_t size, const char* what) const {
  std::string out(static_cast<size_t>(size), '\0');
  read_into(out.data(), offset, size, what);
  return out;
}

void ByteSource::read_into(char* out, int64_t offset, int64_t size, const char* what) const {
  int64_t done = 0;
  while (done < size) {
    const size_t n = read_at(out + done, static_cast<size_t>(size - done), offset + done);
    if (n == 0) throw ParseError(path() + ": file ends inside " + what + " (truncated?)");
    done += static_cast<int64_t>(n);
  }
}

std::vector<std::string> ByteSource::read_ranges(const std::vector<ByteRange>& ranges,
                                                 const char* what) const {
  std::vector<std::string> out;
  out.reserve(ranges.size());
  for (const ByteRange& r : ranges) out.push_back(read(r.offset, r.size, what));
  return out;
}

std::unique_ptr<ByteSource> open_byte_source(const std::string& path, const StorageOptions& storage,
                                             int64_t known_size) {
  const StorageUrl url = parse_storage_url(path);
  if (url.remote()) return std::make_unique<RemoteObject>(url, storage, known_size);
  return std::make_unique<ReadOnlyFile>(url.path);
}

}  // namespace ember
