// One method per kind of source a query can read: what needs to know a source's kind (the
// cluster runner's encoder, which makes the same source on another rank) implements it. A new
// kind of source adds a method here, and every visitor then fails to compile until it says
// what the new kind means to it.
#pragma once

namespace ember {

class Source;
class ArrowSource;
class CsvSource;
class JsonlSource;
class ParquetSource;
class RangeSource;
class TableSource;

class SourceVisitor {
 public:
  virtual ~SourceVisitor() = default;
  virtual void visit(const CsvSource& s) = 0;
  virtual void visit(const JsonlSource& s) = 0;
  virtual void visit(const ParquetSource& s) = 0;
  virtual void visit(const ArrowSource& s) = 0;
  virtual void visit(const RangeSource& s) = 0;
  virtual void visit(const TableSource& s) = 0;
  /// A source the executor makes between pipelines (a breaker's output, a join's spilled
  /// partitions) or a test's stand-in: nothing another rank could read.
  virtual void visit_intermediate(const Source& s) = 0;
};

}  // namespace ember
