// IoErrors that name the object and quote the server's answer (status, S3 error code and
// message), so that a missing bucket, a denied key or a wrong endpoint reads as what it is.
#pragma once

#include <string>

#include "io/storage/http_client.h"

namespace ember {

/// "404 NoSuchKey: The specified key does not exist." from an answer with an S3 error body,
/// or STS's <ErrorResponse><Error> (parsed with pugixml); without one (a HEAD, a plain HTTP server)
/// the status and its reason.
std::string describe_answer(const HttpResponse& response);

/// Throws IoError "cannot ACTION 'NAME': ANSWER", with a hint for 403 (credentials) and for a
/// missing bucket or object.
[[noreturn]] void throw_storage_error(const std::string& action, const std::string& name,
                                      const HttpResponse& response);

}  // namespace ember
