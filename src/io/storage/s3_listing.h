// Listing the keys of a bucket under a prefix (ListObjectsV2, page after page).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/storage/s3_config.h"

namespace ember {

/// One listed object.
struct ListedObject {
  std::string key;
  int64_t size = 0;
};

/// Every object of `bucket` whose key starts with `prefix`, in key order, following
/// continuation tokens. IoError naming s3://bucket/prefix and the server's answer.
std::vector<ListedObject> list_objects(const S3Config& config, const std::string& bucket,
                                       const std::string& prefix);

/// One page of a ListObjectsV2 answer (pugixml): its objects, and the token of the next page
/// ("" when this is the last). ParseError-free: a malformed body is an IoError naming `url`.
struct ListingPage {
  std::vector<ListedObject> objects;
  std::string next_token;
};
ListingPage parse_listing_page(const std::string& xml, const std::string& url);

}  // namespace ember
