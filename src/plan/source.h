// A partitioned scan source: what a logical Source node reads, and how it is opened.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/batch_reader.h"
#include "ember/types.h"
#include "expr/expr_node.h"
#include "plan/source_visitor.h"

namespace ember {

/// A source of rows split into partitions. Immutable and shareable between queries; open()
/// may be called from any thread, concurrently for different partitions.
class Source {
 public:
  virtual ~Source() = default;
  virtual const Schema& schema() const = 0;
  virtual int num_partitions() const = 0;
  /// A reader of partition `p` producing batches of at most `batch_rows` rows.
  virtual std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const = 0;
  /// Starts fetching partition `p`'s bytes in the background, for an open of it soon: the
  /// pipeline runner asks for the partition it will start next while the current ones run.
  /// Null when there is nothing to gain (local files: the page cache reads ahead). Any thread.
  virtual std::shared_ptr<Prefetched> prefetch(int p) const {
    (void)p;
    return nullptr;
  }
  /// open(), with what prefetch(p) returned (null: nothing was fetched ahead).
  virtual std::unique_ptr<BatchReader> open_prefetched(int p, int64_t batch_rows,
                                                       std::shared_ptr<Prefetched> ahead) const {
    (void)ahead;
    return open(p, batch_rows);
  }
  /// One line for explain(), e.g. "CsvScan data/*.csv (12 files, 14 partitions)".
  virtual std::string describe() const = 0;
  /// Calls the visitor's method for this source's kind.
  virtual void accept(SourceVisitor& v) const = 0;
  /// The rank of a cluster that alone can open partition `p` (its rows live there: a join's
  /// buckets after a hash exchange), or -1 when any rank can.
  virtual int home_rank(int p) const {
    (void)p;
    return -1;
  }
  /// The files this source reads, as it names them; none for a source in memory. Lets a write
  /// refuse to replace a directory that its own query reads.
  virtual std::vector<std::string> files() const { return {}; }

  // ---- scans that can narrow what they read (Parquet)
  /// This source producing only `columns` (a subset of its schema, in schema order), or null
  /// when it reads whole rows anyway (the plan then drops what nobody reads).
  virtual std::shared_ptr<const Source> with_columns(const std::set<std::string>& columns) const {
    (void)columns;
    return nullptr;
  }
  /// This source reading only some fields of struct columns: `fields[c]` names the fields of
  /// column c the query reads (the column's type becomes a struct of just those, in its own
  /// order). Null when it reads whole values anyway.
  virtual std::shared_ptr<const Source> with_struct_fields(
      const std::map<std::string, std::set<std::string>>& fields) const {
    (void)fields;
    return nullptr;
  }
  /// This source skipping parts whose rows cannot satisfy `predicate` (the filter still runs
  /// above it), or null when it cannot tell.
  virtual std::shared_ptr<const Source> with_filter(const ExprPtr& predicate) const {
    (void)predicate;
    return nullptr;
  }
};

}  // namespace ember
