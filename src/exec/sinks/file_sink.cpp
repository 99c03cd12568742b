// Each partition streams into one writer, committed (renamed into place) when it finishes.
#include "exec/file_sink.h"

namespace ember {

namespace {

class FilePart : public PartitionSink {
 public:
  FilePart(std::unique_ptr<PartitionWriter> writer, std::atomic<int>& parts_written)
      : writer_(std::move(writer)), parts_written_(parts_written) {}
  void consume(const Batch& batch) override { writer_->write(batch); }
  void finish() override {
    writer_->commit();
    parts_written_.fetch_add(1, std::memory_order_release);
  }

 private:
  std::unique_ptr<PartitionWriter> writer_;
  std::atomic<int>& parts_written_;
};

}  // namespace

std::unique_ptr<PartitionSink> FileSink::open(int partition) {
  return std::make_unique<FilePart>(open_partition_writer(dir_, partition, schema_, format_),
                                    parts_written_);
}

}  // namespace ember
