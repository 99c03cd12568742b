// The Arrow C Stream Interface read through the batch decoder; see arrow_c_import.h.
#include "io/arrow/arrow_c_import.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/buffer_access.h"
#include "core/buffer_cache.h"
#include "ember/error.h"
#include "io/arrow/arrow_batch_decoder.h"
#include "io/arrow/arrow_c_schema.h"

namespace ember::arrow_ipc {

namespace {

/// A buffer whose size the C Data Interface does not give: the decoder's size checks pass and
/// it reads what the offsets and lengths say, as every consumer of the interface does.
constexpr int64_t kUnsized = int64_t{1} << 60;

/// The arrays of some columns of one batch as a BatchSource: their nodes in the order the
/// decoder asks for them (depth first; a dictionary-encoded array's indices only).
class CArraySource final : public BatchSource {
 public:
  /// `owner` keeps the arrays' memory alive (their record batch, released when the last buffer
  /// lent from it goes); without one nothing is lent.
  explicit CArraySource(std::shared_ptr<void> owner) : owner_(std::move(owner)) {}

  void add(const ArrowField& f, const ArrowArray& a) {
    if (a.length < 0 || a.offset < 0 || a.n_buffers < 0 || a.n_children < 0)
      throw std::runtime_error("a negative length, offset or count");
    arrays_.push_back(&a);
    if (f.dictionary) return;
    if (a.n_children != static_cast<int64_t>(f.children.size()))
      throw std::runtime_error(std::to_string(a.n_children) +
                               " child arrays where the schema has " +
                               std::to_string(f.children.size()));
    for (size_t i = 0; i < f.children.size(); ++i) {
      if (a.children[i] == nullptr) throw std::runtime_error("a missing child array");
      add(f.children[i], *a.children[i]);
    }
  }

  NodeInfo node() override {
    if (next_ >= arrays_.size()) throw std::runtime_error("too few arrays");
    current_ = arrays_[next_++];
    buffer_ = 0;
    variadic_sizes_ = nullptr;
    return {current_->offset + current_->length, current_->null_count, current_->offset};
  }

  std::pair<const uint8_t*, int64_t> buffer() override {
    if (buffer_ >= current_->n_buffers) throw std::runtime_error("too few buffers");
    const int64_t k = buffer_++;
    const auto* p = static_cast<const uint8_t*>(current_->buffers[k]);
    if (p == nullptr) return {nullptr, 0};
    // A view column's data buffers (after validity and views) have their sizes in the last.
    if (variadic_sizes_ != nullptr && k >= 2) return {p, variadic_sizes_[k - 2]};
    return {p, kUnsized};
  }

  int64_t variadic_count(const std::string& column) override {
    const int64_t count = current_->n_buffers - 3;
    if (count < 0)
      throw std::runtime_error("column '" + column + "': a view array of " +
                               std::to_string(current_->n_buffers) + " buffers");
    variadic_sizes_ = static_cast<const int64_t*>(current_->buffers[current_->n_buffers - 1]);
    if (count > 0 && variadic_sizes_ == nullptr)
      throw std::runtime_error("column '" + column + "': no sizes of its data buffers");
    return count;
  }

  /// Lends a buffer that already has ember's layout: 64-byte aligned, and zeros from its end to
  /// the next multiple of 64 (Arrow's recommended padding, which pyarrow and ember write). Those
  /// bytes lie in the 64-byte block of the buffer's last byte, so in its page: reading them
  /// cannot fault, though they are not the producer's to give; a sanitizer build, which would
  /// flag the read, lends only buffers that need no padding.
  std::shared_ptr<Buffer> lend(const uint8_t* data, int64_t size) override {
    if (!owner_ || size <= 0 || reinterpret_cast<uintptr_t>(data) % BufferCache::kAlignment != 0)
      return nullptr;
    const auto padded = static_cast<int64_t>(detail::BufferAccess::padded_size(size_t(size)));
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    if (padded != size) return nullptr;
#else
    for (int64_t i = size; i < padded; ++i)
      if (data[i] != 0) return nullptr;
#endif
    return detail::BufferAccess::wrap(data, size, owner_);
  }

 private:
  std::shared_ptr<void> owner_;
  std::vector<const ArrowArray*> arrays_;
  size_t next_ = 0;
  const ArrowArray* current_ = nullptr;
  int64_t buffer_ = 0;
  const int64_t* variadic_sizes_ = nullptr;
};

/// One column (or dictionary) array decoded as `f`, sliced as the array's offset says.
Column decode(const ArrowField& f, const ArrowArray& a, const Dictionaries& dictionaries,
              const std::shared_ptr<void>& owner) {
  CArraySource source(owner);
  source.add(f, a);
  BatchDecoder decoder(source, &dictionaries);
  return decoder.column(f);
}

/// The dictionaries of `f`'s array `a` and of its children, innermost first (a dictionary's
/// values may be dictionary-encoded themselves), into `out` by id.
void load_dictionaries(const CSchema& schema, const ArrowField& f, const ArrowArray& a,
                       Dictionaries& out, const std::shared_ptr<void>& owner) {
  if (f.dictionary) {
    if (a.dictionary == nullptr) throw std::runtime_error("a dictionary-encoded array without one");
    const ArrowField& values = schema.dictionary_values.at(*f.dictionary);
    load_dictionaries(schema, values, *a.dictionary, out, owner);
    out[*f.dictionary] = decode(values, *a.dictionary, out, owner);
    return;
  }
  for (size_t i = 0; i < f.children.size() && i < static_cast<size_t>(a.n_children); ++i)
    if (a.children[i] != nullptr)
      load_dictionaries(schema, f.children[i], *a.children[i], out, owner);
}

/// Releases a C struct when it goes out of scope.
template <class T>
struct Released {
  T value{};
  Released() = default;
  Released(const Released&) = delete;
  Released& operator=(const Released&) = delete;
  ~Released() {
    if (value.release != nullptr) value.release(&value);
  }
};

[[noreturn]] void stream_failed(ArrowArrayStream* s, int code, const char* what) {
  const char* detail = s->get_last_error ? s->get_last_error(s) : nullptr;
  throw IoError(std::string("the Arrow stream failed to ") + what + " (error " +
                std::to_string(code) + (detail ? std::string(": ") + detail : "") + ")");
}

/// The columns of one record batch (a struct array), its offset applied; `owner` keeps `batch`.
std::vector<Column> import_batch(const CSchema& schema, const ArrowArray& batch,
                                 const std::shared_ptr<void>& owner) {
  if (batch.n_children != static_cast<int64_t>(schema.fields.size()) ||
      (batch.n_children > 0 && batch.children == nullptr))
    throw InvalidArgument("an Arrow record batch of " + std::to_string(batch.n_children) +
                          " columns where the stream's schema has " +
                          std::to_string(schema.fields.size()));
  std::vector<Column> columns;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const ArrowField& f = schema.fields[i];
    try {
      if (batch.children[i] == nullptr) throw std::runtime_error("a missing array");
      const ArrowArray& a = *batch.children[i];
      Dictionaries dictionaries;
      load_dictionaries(schema, f, a, dictionaries, owner);
      Column c = decode(f, a, dictionaries, owner);
      if (c.size() < batch.offset + batch.length)
        throw std::runtime_error("an array shorter than its record batch");
      columns.push_back(c.slice(batch.offset, batch.length));
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw InvalidArgument("the Arrow array of column '" + f.name + "': " + e.what());
    }
  }
  return columns;
}

}  // namespace

Table import_c_stream(ArrowArrayStream* stream, const ReleaseRunner& run_release) {
  Released<ArrowArrayStream> owned;
  owned.value = *stream;
  stream->release = nullptr;  // ours now
  ArrowArrayStream* s = &owned.value;
  Released<ArrowSchema> record;
  if (int rc = s->get_schema(s, &record.value)) stream_failed(s, rc, "give its schema");
  const CSchema schema = map_c_schema(record.value);
  std::vector<Field> fields;
  for (size_t i = 0; i < schema.fields.size(); ++i)
    fields.push_back({schema.fields[i].name, schema.fields[i].type});
  Schema out_schema(fields);
  std::vector<Batch> batches;
  while (true) {
    auto next = std::make_unique<Released<ArrowArray>>();
    if (int rc = s->get_next(s, &next->value)) stream_failed(s, rc, "give its next batch");
    if (next->value.release == nullptr) break;  // the end
    // The batch stays with the producer's memory until no column borrows from it.
    const ArrowArray& array = next->value;
    std::shared_ptr<void> owner(next.release(), [run_release](void* p) {
      auto* batch = static_cast<Released<ArrowArray>*>(p);
      if (run_release)
        run_release([batch] { delete batch; });
      else
        delete batch;
    });
    std::vector<Column> columns = import_batch(schema, array, owner);
    if (columns.empty())
      batches.push_back(Batch::empty_with_rows(array.length));
    else
      batches.emplace_back(out_schema, std::move(columns));
  }
  return Table(std::move(out_schema), std::move(batches));
}

}  // namespace ember::arrow_ipc
