// Object storage between ranks: where the store is and how to sign in (with a source, or a
// write's target), and a part file's multipart upload that a rank filled and rank 0 completes.
#pragma once

#include "ember/storage_options.h"
#include "io/storage/s3_multipart_upload.h"
#include "udf/process/wire_message.h"

namespace ember::dist {

/// Appends `storage`: every rank reaches the store itself.
void put_storage(process::MessageWriter& out, const StorageOptions& storage);
/// The options put_storage() wrote. Error when the message is malformed.
StorageOptions get_storage(process::MessageReader& in);

/// Appends `parts`: key, upload id, each part's ETag.
void put_uploaded(process::MessageWriter& out, const UploadedParts& parts);
/// The upload put_uploaded() wrote.
UploadedParts get_uploaded(process::MessageReader& in);

}  // namespace ember::dist
