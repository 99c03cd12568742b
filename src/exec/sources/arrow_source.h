// Arrow IPC files as a Source: one partition per record batch.
#pragma once

#include <string>

#include "ember/arrow_options.h"
#include "io/arrow/arrow_scan.h"
#include "plan/source.h"

namespace ember {

class ArrowSource : public Source {
 public:
  explicit ArrowSource(std::string pattern, ArrowOptions options = {});
  const Schema& schema() const override { return scan_.schema; }
  int num_partitions() const override { return static_cast<int>(scan_.parts.size()); }
  std::unique_ptr<BatchReader> open(int p, int64_t batch_rows) const override;
  std::string describe() const override;
  void accept(SourceVisitor& v) const override { v.visit(*this); }
  std::vector<std::string> files() const override { return paths_; }
  const std::string& pattern() const { return pattern_; }  ///< what it was made from
  const ArrowOptions& options() const { return options_; }

 private:
  std::string pattern_;
  ArrowOptions options_;
  ArrowScan scan_;
  std::vector<std::string> paths_;
};

}  // namespace ember
