"""Where generated code connects, and how values are written in the AWS CLI's JSON."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any

PLACEHOLDER_WHY = (
    "DynamoDB Local accepts any credentials; dynotui used these placeholders because none "
    "were configured. Use your own for anything but a local endpoint."
)


@dataclass(frozen=True)
class CodeTarget:
    """Where the generated code should connect; None means the SDK's own default chain.

    ``credentials`` are the placeholders the app itself used on a local endpoint with no
    credentials configured: without them the code would fail where the app did not."""

    region: str | None = None
    endpoint_url: str | None = None
    credentials: tuple[str, str] | None = None

    def boto3_arguments(self) -> str:
        """The keyword arguments of ``boto3.client("dynamodb", ...)``, with a leading comma."""
        pairs = [("region_name", self.region), ("endpoint_url", self.endpoint_url)]
        if self.credentials:
            pairs += [
                ("aws_access_key_id", self.credentials[0]),
                ("aws_secret_access_key", self.credentials[1]),
            ]
        return "".join(f", {name}={value!r}" for name, value in pairs if value)

    def python_comment(self) -> str:
        return f"# {PLACEHOLDER_WHY}\n" if self.credentials else ""

    def cli_flags(self) -> list[str]:
        flags = []
        if self.region:
            flags.append(f"--region {shlex.quote(self.region)}")
        if self.endpoint_url:
            flags.append(f"--endpoint-url {shlex.quote(self.endpoint_url)}")
        return flags

    def cli_prefix(self) -> str:
        """The AWS CLI takes credentials only from the environment: set them for the call."""
        if not self.credentials:
            return ""
        key, secret = (shlex.quote(part) for part in self.credentials)
        return f"AWS_ACCESS_KEY_ID={key} AWS_SECRET_ACCESS_KEY={secret} "

    def cli_comment(self) -> str:
        return f"\n# {PLACEHOLDER_WHY}" if self.credentials else ""

    def javascript_config(self) -> str:
        config: dict[str, Any] = {
            k: v for k, v in (("region", self.region), ("endpoint", self.endpoint_url)) if v
        }
        if self.credentials:
            config["credentials"] = {
                "accessKeyId": self.credentials[0],
                "secretAccessKey": self.credentials[1],
            }
        return json.dumps(config)

    def javascript_comment(self) -> str:
        return f"// {PLACEHOLDER_WHY}\n" if self.credentials else ""


def code_target(client: Any) -> CodeTarget:
    """Where code for pages read through ``client`` should connect."""
    from dynotui.dynamodb.connection import placeholder_credentials

    endpoint = client.meta.endpoint_url
    default = "amazonaws.com" in endpoint  # the SDKs find AWS's own endpoints themselves
    return CodeTarget(
        region=client.meta.region_name,
        endpoint_url=None if default else endpoint,
        credentials=placeholder_credentials(client),
    )


def cli_json(value: Any) -> str:
    return shlex.quote(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def has_binary_json(parts: list[str]) -> bool:
    return any('{"B":' in part or '{"BS":' in part for part in parts)
