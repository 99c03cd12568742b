// Arrow IPC reading: every FlatBuffer is verified before use, every buffer range and offset is
// checked against the body, so a corrupt file is a ParseError and never a wild read.
#include "io/arrow/arrow_scan.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>

#include "ember/error.h"
#include "io/arrow/File_generated.h"
#include "io/arrow/Message_generated.h"
#include "io/arrow/arrow_batch_decoder.h"
#include "io/arrow/arrow_file.h"
#include "io/byte_source.h"
#include "io/duplicate_column_names.h"
#include "io/file_split.h"

namespace ember {

using arrow_ipc::BatchDecoder;
using arrow_ipc::Dictionaries;

namespace {

// One message of a file (a record or dictionary batch): its block read, its metadata verified.
struct LoadedMessage {
  std::string bytes;  ///< the block: metadata, then body
  AlignedCopy meta{nullptr, 0};
  const fb::Message* message = nullptr;
  const uint8_t* body = nullptr;
  int64_t body_size = 0;
};

LoadedMessage load_message(const ArrowFile& file, const fb::Block& blk) {
  if (blk.offset() < 8 || blk.metaDataLength() < 8 || blk.bodyLength() < 0 ||
      static_cast<uint64_t>(blk.offset()) + uint64_t(blk.metaDataLength()) +
              uint64_t(blk.bodyLength()) >
          static_cast<uint64_t>(file.size))
    throw std::runtime_error("the block lies outside the file");
  LoadedMessage m;
  // This block only, read now: a scan holds in memory the batch it decodes.
  m.bytes = open_byte_source(file.path, file.storage, file.size)
                ->read(blk.offset(), blk.metaDataLength() + blk.bodyLength(), "a record batch");
  const auto* p = reinterpret_cast<const uint8_t*>(m.bytes.data());
  uint32_t marker;
  std::memcpy(&marker, p, 4);
  const int prefix = marker == 0xFFFFFFFFu ? 8 : 4;
  int32_t len;
  std::memcpy(&len, p + prefix - 4, 4);
  if (len <= 0 || len > blk.metaDataLength() - prefix)
    throw std::runtime_error("bad message length");
  m.meta = AlignedCopy(reinterpret_cast<const char*>(p + prefix), static_cast<size_t>(len));
  flatbuffers::Verifier v(m.meta.data(), static_cast<size_t>(len));
  if (!fb::VerifyMessageBuffer(v)) throw std::runtime_error("corrupt message metadata");
  m.message = fb::GetMessage(m.meta.data());
  m.body = p + blk.metaDataLength();
  m.body_size = blk.bodyLength();
  return m;
}

const ArrowField* field_with_dictionary(const std::vector<ArrowField>& fields, int64_t id) {
  for (const ArrowField& f : fields) {
    if (f.dictionary == id) return &f;
    if (const ArrowField* c = field_with_dictionary(f.children, id)) return c;
  }
  return nullptr;
}

// Every dictionary batch of the file, in file order: a delta batch extends its dictionary.
Dictionaries load_dictionaries(const ArrowFile& file, size_t count) {
  Dictionaries dictionaries;
  for (size_t k = 0; k < count && k < file.dictionary_blocks.size(); ++k) {
    const fb::Block& blk = file.dictionary_blocks[k];
    const LoadedMessage m = load_message(file, blk);
    const fb::DictionaryBatch* db = m.message->header_as_DictionaryBatch();
    if (!db || !db->data()) throw std::runtime_error("a dictionary block holds no dictionary");
    const ArrowField* field = field_with_dictionary(file.fields, db->id());
    if (!field) throw std::runtime_error("a dictionary no column uses");
    ArrowField values = *field;
    values.dictionary.reset();
    // A dictionary's values may themselves be dictionary-encoded (a struct of categorical
    // text, say) by a dictionary sent before it.
    BatchDecoder d(db->data(), m.body, m.body_size, &dictionaries);
    Column c = d.column(values);
    auto it = dictionaries.find(db->id());
    if (db->isDelta() && it != dictionaries.end()) {
      it->second = Column::concat({it->second, c});
    } else {
      dictionaries[db->id()] = std::move(c);
    }
  }
  return dictionaries;
}

class ArrowBatchReader final : public BatchReader {
 public:
  ArrowBatchReader(std::shared_ptr<const ArrowFile> file, int batch, int64_t batch_rows)
      : file_(std::move(file)), batch_(batch), batch_rows_(batch_rows) {}

  std::optional<Batch> next() override {
    if (!loaded_) load();
    if (pos_ >= rows_) return std::nullopt;
    const int64_t n = std::min(batch_rows_, rows_ - pos_);
    std::vector<Column> cols;
    for (const Column& c : columns_) cols.push_back(c.slice(pos_, n));
    pos_ += n;
    if (cols.empty()) return Batch::empty_with_rows(n);
    return Batch(file_->schema, std::move(cols));
  }
  /// The record batch's block (its metadata and body).
  int64_t bytes_read() const override { return bytes_read_; }

 private:
  void load() {
    loaded_ = true;
    try {
      const fb::Block& blk = file_->blocks[size_t(batch_)];
      const LoadedMessage m = load_message(*file_, blk);
      const fb::RecordBatch* rb = m.message->header_as_RecordBatch();
      if (!rb) throw std::runtime_error("the block is not a record batch");
      // A stream's batch sees the dictionaries sent before it; a file's, all of them.
      const Dictionaries dictionaries =
          load_dictionaries(*file_, file_->dictionaries_before.empty()
                                        ? file_->dictionary_blocks.size()
                                        : file_->dictionaries_before[static_cast<size_t>(batch_)]);
      rows_ = rb->length();
      // Every column but a null-typed one needs at least a bit per row in the body; a batch
      // of no such columns is still held to 2^24 rows, so a corrupt length cannot make the
      // reader hand out empty batches for ever.
      if (rows_ < 0 || (rows_ > (int64_t{1} << 24) && rows_ / 8 > blk.bodyLength()))
        throw std::runtime_error("a length of " + std::to_string(rows_) + " rows in a body of " +
                                 std::to_string(blk.bodyLength()) + " bytes");
      BatchDecoder d(rb, m.body, m.body_size, &dictionaries);
      bytes_read_ = blk.metaDataLength() + blk.bodyLength();
      for (const ArrowField& f : file_->fields) {
        columns_.push_back(d.column(f));
        if (columns_.back().size() != rows_)
          throw std::runtime_error("a column's length differs from the batch's");
      }
    } catch (const std::runtime_error& e) {
      if (dynamic_cast<const Error*>(&e)) throw;
      throw ParseError(file_->path + ": record batch " + std::to_string(batch_) + ": " + e.what());
    }
  }

  std::shared_ptr<const ArrowFile> file_;
  int batch_;
  int64_t batch_rows_;
  bool loaded_ = false;
  int64_t rows_ = 0, pos_ = 0;
  int64_t bytes_read_ = 0;
  std::vector<Column> columns_;
};

}  // namespace

ArrowScan plan_arrow_scan(const std::string& path_or_glob, const StorageOptions& storage) {
  ArrowScan scan;
  for (const FoundFile& found : expand_files(path_or_glob, storage))
    scan.files.push_back(read_arrow_footer(found, storage));
  scan.schema = scan.files.front()->schema;
  for (size_t f = 0; f < scan.files.size(); ++f) {
    if (!(scan.files[f]->schema == scan.schema))
      throw InvalidArgument(scan.files[f]->path + " has columns " +
                            scan.files[f]->schema.to_string() + ", " + scan.files[0]->path +
                            " has " + scan.schema.to_string() +
                            "; the files of one scan must share a schema");
    for (size_t b = 0; b < scan.files[f]->blocks.size(); ++b)
      scan.parts.push_back({int(f), int(b)});
  }
  return scan;
}

const std::string& arrow_file_path(const ArrowFile& file) { return file.path; }

std::unique_ptr<BatchReader> open_arrow_part(const ArrowScan& scan, int p, int64_t batch_rows) {
  if (batch_rows <= 0) throw InvalidArgument("batch rows must be positive");
  const ArrowScan::Part part = scan.parts.at(size_t(p));
  return std::make_unique<ArrowBatchReader>(scan.files[size_t(part.file)], part.batch, batch_rows);
}

}  // namespace ember
