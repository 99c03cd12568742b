"""The credential services of a cloud machine, on loopback, for the credential source tests:
the EC2 instance metadata service (IMDSv2: a session token, then the role and its credentials)
a container credentials endpoint that wants an Authorization token, and STS's
AssumeRoleWithWebIdentity (POST /sts/, wanting role ROLE_ARN and the token WEB_IDENTITY_TOKEN).
All hand out s3rver's key pair with a session token. Prints its port, then serves until stdin closes.
    fake_credentials_server.py CONTAINER_TOKEN
GET /counts answers how many tokens and credentials were handed out (JSON)."""
import datetime
import http.server
import json
import sys
import threading
import urllib.parse

TOKEN = "imds-session-token"
ROLE = "ember-test-role"
ROLE_ARN = "arn:aws:iam::123456789012:role/ember-test"
WEB_IDENTITY_TOKEN = "eyJ-test-web-identity-token"
counts = {"tokens": 0, "imds_credentials": 0, "container_credentials": 0, "sts_credentials": 0}


def credentials():
    expires = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)
    return json.dumps({"Code": "Success", "AccessKeyId": "S3RVER", "SecretAccessKey": "S3RVER",
                       "Token": "session-token-from-the-service",
                       "Expiration": expires.strftime("%Y-%m-%dT%H:%M:%SZ")})


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_PUT(self):
        if self.path != "/latest/api/token":
            return self.answer(404, "no such path")
        if not self.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
            return self.answer(400, "missing the token TTL header")
        counts["tokens"] += 1
        self.answer(200, TOKEN)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        form = {k: v[0] for k, v in urllib.parse.parse_qs(body).items()}
        if self.path != "/sts/" or form.get("Action") != "AssumeRoleWithWebIdentity":
            return self.answer(404, "no such path or action")
        if form.get("RoleArn") != ROLE_ARN or form.get("WebIdentityToken") != WEB_IDENTITY_TOKEN \
                or not form.get("RoleSessionName"):
            return self.answer(403, "<ErrorResponse><Error><Code>AccessDenied</Code><Message>"
                               "Not authorized to perform sts:AssumeRoleWithWebIdentity</Message>"
                               "</Error></ErrorResponse>")
        counts["sts_credentials"] += 1
        c = json.loads(credentials())
        self.answer(200, "<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult>"
                    "<Credentials><AccessKeyId>%s</AccessKeyId><SecretAccessKey>%s</SecretAccessKey>"
                    "<SessionToken>%s</SessionToken><Expiration>%s</Expiration></Credentials>"
                    "</AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>"
                    % (c["AccessKeyId"], c["SecretAccessKey"], c["Token"], c["Expiration"]))

    def do_GET(self):
        self.path = self.path.split("?")[0]
        if self.path == "/counts":
            return self.answer(200, json.dumps(counts))
        if self.path.startswith("/latest/meta-data/iam/security-credentials/"):
            if self.headers.get("X-aws-ec2-metadata-token") != TOKEN:
                return self.answer(401, "IMDSv2 wants a session token")
            role = self.path[len("/latest/meta-data/iam/security-credentials/"):]
            if role == "":
                return self.answer(200, ROLE + "\n")
            if role != ROLE:
                return self.answer(404, "no such role")
            counts["imds_credentials"] += 1
            return self.answer(200, credentials())
        if self.path == "/container/credentials":
            if self.headers.get("Authorization") != sys.argv[1]:
                return self.answer(401, "wrong authorization token")
            counts["container_credentials"] += 1
            return self.answer(200, credentials())
        self.answer(404, "no such path")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(server.server_address[1], flush=True)
sys.stdin.read()
server.shutdown()
