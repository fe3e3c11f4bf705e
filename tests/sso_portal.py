"""A loopback stand-in for AWS's SSO portal: GetRoleCredentials, the one call botocore's
SSO credential provider makes once it has read a token from its cache.

moto's server does not serve the SSO portal API, and botocore reaches any service at the
endpoint ``AWS_ENDPOINT_URL_SSO`` names, so the real provider (its config reading, its
token cache, its expiry rules, its request) runs against this. It answers as the service
does: role credentials for the bearer token it was given, 401 UnauthorizedException for
any other.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


class SsoPortal:
    def __init__(
        self, token: str, access_key: str = "ASIASSOPORTALTEST", lifetime: float = 3600
    ) -> None:
        self.token = token  # the one token it honours; change it to revoke the session
        self.access_key = access_key
        self.lifetime = lifetime  # seconds the role credentials it hands out last
        self.calls: list[dict[str, Any]] = []  # what each request asked for
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> SsoPortal:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        portal = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                url = urlparse(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                token = self.headers.get("x-amz-sso_bearer_token")
                portal.calls.append({"path": url.path, "token": token, **query})
                if url.path != "/federation/credentials":
                    self._answer(404, {"message": "not found"}, "ResourceNotFoundException")
                elif token != portal.token:
                    self._answer(401, {"message": "Session token not found or invalid"},
                                 "UnauthorizedException")  # fmt: skip
                else:
                    expires = int((time.time() + portal.lifetime) * 1000)
                    self._answer(
                        200,
                        {
                            "roleCredentials": {
                                "accessKeyId": portal.access_key,
                                "secretAccessKey": "sso-portal-secret",
                                "sessionToken": "sso-portal-session",
                                "expiration": expires,
                            }
                        },
                    )

            def _answer(self, status: int, body: dict[str, Any], error: str = "") -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if error:
                    self.send_header("x-amzn-ErrorType", error)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
