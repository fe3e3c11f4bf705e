"""A DynamoDB client from the normal AWS chain, with the CLI's option names."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import boto3
from botocore.config import Config
from botocore.exceptions import ProfileNotFound

from dynotui import __version__

# DynamoDB Local accepts any credentials; these spare a first-time user with no AWS
# configuration at all a "no credentials" error against their own laptop.
LOCAL_FALLBACK = {"aws_access_key_id": "dynotui", "aws_secret_access_key": "dynotui"}
LOCAL_REGION = "us-east-1"


class ConnectionSetupError(ValueError):
    """The connection options cannot give a client; the message says which to set."""


@dataclass(frozen=True)
class ConnectionOptions:
    profile: str | None = None
    region: str | None = None
    endpoint_url: str | None = None


def is_loopback_url(url: str | None) -> bool:
    if not url:
        return False
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def effective_endpoint(
    options: ConnectionOptions, env: Mapping[str, str] | None = None
) -> str | None:
    """The endpoint botocore will use: the option, else the service or global env variable."""
    env = os.environ if env is None else env
    return (
        options.endpoint_url
        or env.get("AWS_ENDPOINT_URL_DYNAMODB")
        or env.get("AWS_ENDPOINT_URL")
        or None
    )


def make_client(options: ConnectionOptions, *, max_attempts: int = 5) -> Any:
    """A boto3 DynamoDB client; throttling and dropped connections are retried by botocore."""
    try:
        session = boto3.Session(profile_name=options.profile, region_name=options.region)
    except ProfileNotFound as exc:
        raise ConnectionSetupError(
            f"AWS profile '{options.profile}' is not in your AWS config: check --profile."
        ) from exc
    endpoint = effective_endpoint(options)
    local = is_loopback_url(endpoint)
    region = session.region_name or (LOCAL_REGION if local else None)
    if region is None:
        raise ConnectionSetupError(
            "no AWS region: pass --region, set AWS_REGION, or set one in your profile."
        )
    extra: dict[str, str] = {}
    if local and session.get_credentials() is None:
        extra = dict(LOCAL_FALLBACK)
    config = Config(
        retries={"mode": "standard", "max_attempts": max_attempts},
        connect_timeout=5,
        read_timeout=30,
        user_agent_extra=f"dynotui/{__version__}",
    )
    return session.client(
        "dynamodb", region_name=region, endpoint_url=options.endpoint_url, config=config, **extra
    )


def describe(client: Any, options: ConnectionOptions) -> str:
    """One line for headers: endpoint, region, profile."""
    profile = options.profile or os.environ.get("AWS_PROFILE") or "default chain"
    return f"{client.meta.endpoint_url} · {client.meta.region_name} · profile: {profile}"
