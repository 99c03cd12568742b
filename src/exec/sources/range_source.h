// range(n): int64 ids 0..n-1 cut into contiguous partitions.
#pragma once

#include "plan/source.h"

namespace ember {

class RangeSource : public Source {
 public:
  RangeSource(int64_t n, int num_partitions);
  const Schema& schema() const override { return schema_; }
  int num_partitions() const override { return parts_; }
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  std::string describe() const override;
  void accept(SourceVisitor& v) const override { v.visit(*this); }
  int64_t rows() const { return n_; }  ///< n: what it was made from

 private:
  int64_t n_;
  int parts_;
  Schema schema_;
};

}  // namespace ember
