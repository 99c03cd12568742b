// A url_download: every input column passes through, the bytes of the file each row's URL
// names are appended as one more column (binary).
#pragma once

#include <string>

#include "ember/download_options.h"
#include "plan/logical_node.h"

namespace ember {

struct UrlDownloadNode final : LogicalNode {
  std::string url_column;  ///< the input column of URLs (utf8)
  std::string url_name;    ///< the URL expression as written, for explain() and messages
  std::string output_column;
  DownloadOptions options;

  std::string describe() const override;
  void accept(NodeVisitor& v) const override { v.visit(*this); }
  NodePtr with_children(std::vector<NodePtr> children) const override;
  ColumnSet required_input(const ColumnSet& required) const override;
  std::optional<std::map<std::string, std::string>> filter_passthrough() const override;
  bool preserves_rows() const override { return true; }
};

/// TypeError when `url_column` is not utf8.
NodePtr make_url_download(NodePtr input, std::string url_column, std::string url_name,
                          std::string output_column, DownloadOptions options);

/// The options a url_download call node carries as its constant arguments.
DownloadOptions download_options_of(const ExprNode& call);

}  // namespace ember
