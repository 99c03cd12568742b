// Shared memory for batches: anonymous memfd regions (no name in /dev/shm, so nothing can be
// left behind), created by the side that writes them and mapped read-only by the other side.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "udf/process/unique_fd.h"

namespace ember::process {

/// One mapping of a region; unmapped when the last reference goes. Buffers wrapped over the
/// region hold a reference, so the bytes stay valid for as long as any column uses them.
class SharedMapping {
 public:
  SharedMapping(uint8_t* data, size_t size) : data_(data), size_(size) {}
  ~SharedMapping();
  SharedMapping(const SharedMapping&) = delete;
  SharedMapping& operator=(const SharedMapping&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_;
  size_t size_;
};

/// A region this process writes: the memfd (sent to the peer, and again to a restarted peer)
/// and a writable mapping of it.
struct SharedRegion {
  UniqueFd fd;
  std::shared_ptr<SharedMapping> map;

  /// A fresh region of at least `min_bytes`, pages populated up front so that copying a batch
  /// in does not fault page by page. Throws UdfError when the system refuses.
  static SharedRegion create(const char* name, size_t min_bytes);
  size_t size() const { return map ? map->size() : 0; }
};

/// Size for a new region that must hold `needed` bytes: headroom so that batches of similar
/// size reuse it, rounded to whole MiB.
size_t region_size_for(size_t needed);

/// Maps a region received from the peer, read-only, at its full size. Throws UdfError.
std::shared_ptr<SharedMapping> map_received_region(int fd);

}  // namespace ember::process
