// Where credentials come from when no key is given or found in the environment and profile
// files: a web identity token exchanged with STS (Kubernetes, EKS IRSA, GitHub Actions), the
// profile's credential_process, the container's endpoint (ECS, EKS Pod Identity), and the EC2
// instance's role (IMDSv2), in that order, as the AWS SDKs look.
#pragma once

#include <optional>
#include <string>

namespace ember {

/// Temporary (or long-lived) credentials a source handed out.
struct AwsCredentials {
  std::string access_key_id, secret_access_key, session_token;
};

/// The first source that applies: AWS_ROLE_ARN with AWS_WEB_IDENTITY_TOKEN_FILE (STS
/// AssumeRoleWithWebIdentity at AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL or the region's STS;
/// session name AWS_ROLE_SESSION_NAME); `credential_process` (the profile's command, when not
/// empty); AWS_CONTAINER_CREDENTIALS_FULL_URI or _RELATIVE_URI (with the token of
/// AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE or AWS_CONTAINER_AUTHORIZATION_TOKEN); the instance
/// metadata service, when AWS_EC2_METADATA_SERVICE_ENDPOINT names it or the machine says it is
/// an EC2 instance (DMI), unless AWS_EC2_METADATA_DISABLED is "true". nullopt when none
/// applies, or the instance has no role. Answers are kept until 5 minutes before they expire.
/// IoError naming the source and its answer when a source that applies fails.
std::optional<AwsCredentials> credentials_from_sources(const std::string& credential_process);

}  // namespace ember
