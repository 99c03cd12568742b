// Reading S3's <Error><Code/><Message/></Error> bodies into messages.
#include "io/storage/storage_error.h"

#include <pugixml.hpp>

#include "ember/error.h"

namespace ember {
namespace {

std::string reason(long status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 416:
      return "Range Not Satisfiable";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "";
  }
}

std::string s3_code(const HttpResponse& response) {
  pugi::xml_document doc;
  if (!doc.load_buffer(response.body.data(), response.body.size())) return "";
  return doc.child("Error").child_value("Code");
}

}  // namespace

std::string describe_answer(const HttpResponse& response) {
  std::string out = std::to_string(response.status);
  pugi::xml_document doc;
  pugi::xml_node error;
  if (doc.load_buffer(response.body.data(), response.body.size())) {
    // S3's <Error> at the top; STS and the other query-protocol services wrap it in
    // <ErrorResponse>.
    error = doc.child("Error");
    if (!error) error = doc.child("ErrorResponse").child("Error");
  }
  const std::string code = error ? error.child_value("Code") : "";
  const std::string message = error ? error.child_value("Message") : "";
  if (!code.empty()) {
    out += " " + code;
    if (!message.empty()) out += ": " + message;
    return out;
  }
  const std::string why = reason(response.status);
  return why.empty() ? out : out + " " + why;
}

void throw_storage_error(const std::string& action, const std::string& name,
                         const HttpResponse& response) {
  std::string message =
      "cannot " + action + " '" + name + "': the server answered " + describe_answer(response);
  const std::string code = s3_code(response);
  if (response.status == 403 || code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch")
    message +=
        " (check the credentials: StorageOptions, AWS_ACCESS_KEY_ID/"
        "AWS_SECRET_ACCESS_KEY or the AWS_PROFILE profile)";
  else if (code == "NoSuchBucket")
    message += " (no such bucket at this endpoint: check the bucket name and endpoint_url)";
  throw IoError(printable(message));
}

}  // namespace ember
