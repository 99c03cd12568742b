// Each partition streams into one writer, committed (renamed into place) when it finishes.
#include "exec/file_sink.h"

namespace ember {

namespace {

class FilePart : public PartitionSink {
 public:
  explicit FilePart(std::unique_ptr<PartitionWriter> writer) : writer_(std::move(writer)) {}
  void consume(const Batch& batch) override { writer_->write(batch); }
  void finish() override { writer_->commit(); }

 private:
  std::unique_ptr<PartitionWriter> writer_;
};

}  // namespace

std::unique_ptr<PartitionSink> FileSink::open(int partition) {
  return std::make_unique<FilePart>(open_partition_writer(dir_, partition, schema_, format_));
}

}  // namespace ember
