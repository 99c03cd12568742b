// ListObjectsV2 requests and their XML answers.
#include "io/storage/s3_listing.h"

#include <pugixml.hpp>

#include "ember/error.h"
#include "io/storage/http_client.h"
#include "io/storage/storage_error.h"
#include "io/storage/storage_url.h"

namespace ember {

ListingPage parse_listing_page(const std::string& xml, const std::string& url) {
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size()))
    throw IoError("cannot list '" + url + "': the server's answer is not XML");
  const pugi::xml_node result = doc.child("ListBucketResult");
  if (!result) throw IoError("cannot list '" + url + "': the answer holds no ListBucketResult");
  ListingPage page;
  for (const pugi::xml_node c : result.children("Contents")) {
    ListedObject o;
    o.key = c.child_value("Key");
    o.size = c.child("Size").text().as_llong(0);
    page.objects.push_back(std::move(o));
  }
  if (std::string(result.child_value("IsTruncated")) == "true") {
    page.next_token = result.child_value("NextContinuationToken");
    if (page.next_token.empty())
      throw IoError("cannot list '" + url + "': a truncated page without a continuation token");
  }
  return page;
}

std::vector<ListedObject> list_objects(const S3Config& config, const std::string& bucket,
                                       const std::string& prefix) {
  const std::string name = s3_url(bucket, prefix);
  std::vector<ListedObject> out;
  std::string token;
  do {
    // Parameters sorted by name and encoded: the query is then already in SigV4's canonical
    // form, whatever the signer does with it.
    std::string query;
    if (!token.empty()) query += "continuation-token=" + uri_encode(token, false) + "&";
    query += "list-type=2&prefix=" + uri_encode(prefix, false);
    HttpRequest r;
    r.url = config.object_url(bucket, "", query);
    r.label = name;
    r.sign = &config;
    const HttpResponse answer = HttpClient::instance().send(r);
    if (!answer.ok()) throw_storage_error("list", name, answer);
    ListingPage page = parse_listing_page(answer.body, name);
    for (ListedObject& o : page.objects) out.push_back(std::move(o));
    token = std::move(page.next_token);
  } while (!token.empty());
  return out;
}

}  // namespace ember
