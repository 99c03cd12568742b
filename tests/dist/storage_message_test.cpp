// Object storage fields between ranks: a write's storage options and a part's upload arrive
// as they left.
#include "dist/storage_message.h"

#include <gtest/gtest.h>

namespace ember::dist {
namespace {

TEST(StorageMessage, OptionsAndAnUploadSurviveTheTrip) {
  StorageOptions storage{"http://127.0.0.1:9000", "eu-west-1", "key", "secret", "token"};
  storage.max_connections = 7;
  const UploadedParts parts{"out/part-00003.csv", "upload id/+=", {"\"e1\"", "\"e2\"", ""}};
  process::MessageWriter out;
  out.begin(process::Op::Stop);
  put_storage(out, storage);
  put_uploaded(out, parts);
  out.put(int32_t{-5});  // what follows is read where it was put

  process::MessageReader in(out.bytes());
  const StorageOptions s = get_storage(in);
  EXPECT_EQ(s.endpoint_url, storage.endpoint_url);
  EXPECT_EQ(s.region, storage.region);
  EXPECT_EQ(s.access_key_id, storage.access_key_id);
  EXPECT_EQ(s.secret_access_key, storage.secret_access_key);
  EXPECT_EQ(s.session_token, storage.session_token);
  EXPECT_EQ(s.max_connections, 7);
  const UploadedParts p = get_uploaded(in);
  EXPECT_EQ(p.key, parts.key);
  EXPECT_EQ(p.upload_id, parts.upload_id);
  EXPECT_EQ(p.etags, parts.etags);
  EXPECT_EQ(in.get<int32_t>(), -5);
}

}  // namespace
}  // namespace ember::dist
