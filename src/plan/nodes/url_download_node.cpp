// A download node: the input's schema plus the downloaded bytes.
#include "plan/nodes/url_download_node.h"

#include "ember/error.h"

namespace ember {

std::string UrlDownloadNode::describe() const {
  return "UrlDownload " + output_column + " = " + url_name +
         ".url_download(max_connections=" + std::to_string(options.max_connections) +
         (options.on_error == OnError::Null ? ", on_error=null)" : ")");
}

NodePtr UrlDownloadNode::with_children(std::vector<NodePtr> children) const {
  return make_url_download(std::move(children.at(0)), url_column, url_name, output_column, options);
}

ColumnSet UrlDownloadNode::required_input(const ColumnSet& required) const {
  // Downloads always run (a failed one fails the query); the node just carries less.
  ColumnSet below = required;
  below.erase(output_column);
  below.insert(url_column);
  return below;
}

std::optional<std::map<std::string, std::string>> UrlDownloadNode::filter_passthrough() const {
  std::map<std::string, std::string> out;
  for (const Field& f : child().schema.fields()) out[f.name] = f.name;
  return out;
}

NodePtr make_url_download(NodePtr input, std::string url_column, std::string url_name,
                          std::string output_column, DownloadOptions options) {
  const int i = input->schema.index_of(url_column);
  if (i < 0)
    throw InvalidArgument("url_download: unknown column '" + url_column +
                          "'; columns are: " + input->schema.to_string());
  const DataType& t = input->schema.field(i).type;
  if (t.id() != TypeId::Utf8 && t.id() != TypeId::Null)
    throw TypeError("url_download: " + url_name + " is " + t.to_string() +
                    ", not utf8 URLs or paths");
  auto n = std::make_shared<UrlDownloadNode>();
  std::vector<Field> fields = input->schema.fields();
  fields.push_back({output_column, binary()});
  n->schema = Schema(std::move(fields));
  n->url_column = std::move(url_column);
  n->url_name = std::move(url_name);
  n->output_column = std::move(output_column);
  n->options = options;
  n->children.push_back(std::move(input));
  return n;
}

DownloadOptions download_options_of(const ExprNode& call) {
  DownloadOptions options;
  options.max_connections = static_cast<int>(std::get<int64_t>(call.params.at(0)));
  options.on_error = std::get<int64_t>(call.params.at(1)) != 0 ? OnError::Null : OnError::Raise;
  return options;
}

}  // namespace ember
