// Storage options and uploads as message fields.
#include "dist/storage_message.h"

#include "dist/plan_fields.h"
#include "ember/error.h"

namespace ember::dist {

void put_storage(process::MessageWriter& out, const StorageOptions& storage) {
  put_strings(out, {storage.endpoint_url, storage.region, storage.access_key_id,
                    storage.secret_access_key, storage.session_token});
  out.put(static_cast<int32_t>(storage.max_connections));
}

StorageOptions get_storage(process::MessageReader& in) {
  const std::vector<std::string> fields = get_strings(in);
  if (fields.size() != 5) throw Error("distributed runner: a malformed storage message");
  StorageOptions storage{fields[0], fields[1], fields[2], fields[3], fields[4]};
  storage.max_connections = in.get<int32_t>();
  return storage;
}

void put_uploaded(process::MessageWriter& out, const UploadedParts& parts) {
  out.put_string(parts.key);
  out.put_string(parts.upload_id);
  put_strings(out, parts.etags);
}

UploadedParts get_uploaded(process::MessageReader& in) {
  UploadedParts parts;
  parts.key = std::string(in.get_string());
  parts.upload_id = std::string(in.get_string());
  parts.etags = get_strings(in);
  return parts;
}

}  // namespace ember::dist
