"""A DynamoDB client from the normal AWS chain, with the CLI's option names.

Timeouts and retries are set deliberately (and are flags): an endpoint that accepts
connections and never answers costs ``read_timeout`` per attempt, not minutes. A
read that is cancelled makes no further attempt: a botocore hook checks the
reading thread's cancel token before every request it sends, retries included.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import InputError, ReadCancelled
from dynotui.dynamodb import fast_items, signin
from dynotui.dynamodb.loopback import DIRECT, is_loopback_url
from dynotui.version import package_version

# DynamoDB Local accepts any credentials; these spare a first-time user with no AWS
# configuration at all a "no credentials" error against their own laptop.
LOCAL_FALLBACK = {"aws_access_key_id": "dynotui", "aws_secret_access_key": "dynotui"}
LOCAL_REGION = "us-east-1"
PLACEHOLDER_MARK = "dynotui_placeholder_credentials"  # set on a client's meta, read by codegen
# An endpoint that accepts and never answers costs read timeout x attempts plus backoff:
# about 31 s at these defaults (benchmarks/silent_endpoint.py), where 15 s x 5 cost 76 s.
DEFAULT_CONNECT_TIMEOUT = 3.0
DEFAULT_READ_TIMEOUT = 10.0
DEFAULT_MAX_ATTEMPTS = 3
# botocore's credential providers that ask another host (instance or container metadata).
NETWORK_CREDENTIAL_PROVIDERS = ("container-role", "iam-role")


class ConnectionSetupError(InputError):
    """The connection options cannot give a client; the message says which to set."""


@dataclass(frozen=True)
class ConnectionOptions:
    profile: str | None = None
    region: str | None = None
    endpoint_url: str | None = None
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    # The endpoint of the demo's own DynamoDB Local, started by this run on a port of its
    # own: history keeps "the demo" rather than a port the next demo will not have.
    demo_endpoint: str | None = None

    @property
    def is_demo(self) -> bool:
        """Connected to the demo's own DynamoDB Local (not to one changed to since)."""
        return self.demo_endpoint is not None and self.endpoint_url == self.demo_endpoint


def check_endpoint(url: str, name: str = "--endpoint-url") -> str:
    """``url`` if both urllib (read here) and botocore (which connects) take it as an http
    or https URL with a host; else a one-line refusal naming ``name``."""
    from botocore.utils import is_valid_endpoint_url, is_valid_ipv6_endpoint_url

    example = "give one like http://localhost:8000"
    try:
        parsed = urlsplit(url)
    except ValueError as exc:  # brackets that hold no IPv6 address, or are not closed
        raise ConnectionSetupError(f"{name} {url!r} is not a URL ({exc}): {example}") from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConnectionSetupError(f"{name} {url!r} is not a URL: {example}")
    try:
        parsed.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise ConnectionSetupError(f"{name} {url!r} has a port that is not a number") from None
    if not (is_valid_endpoint_url(url) or is_valid_ipv6_endpoint_url(url)):
        raise ConnectionSetupError(
            f"{name} {url!r} is not a URL botocore connects to (its host must be a name of "
            f"letters, digits, '-' and '.', or an IP address): {example}"
        )
    return url


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


def endpoint_source(options: ConnectionOptions, env: Mapping[str, str] | None = None) -> str:
    """Where ``effective_endpoint`` found the endpoint, by the name a user set it under."""
    env = os.environ if env is None else env
    if options.endpoint_url:
        return "--endpoint-url"
    if env.get("AWS_ENDPOINT_URL_DYNAMODB"):
        return "AWS_ENDPOINT_URL_DYNAMODB"
    return "AWS_ENDPOINT_URL"


def effective_region(
    options: ConnectionOptions, profile_region: str | None, env: Mapping[str, str] | None = None
) -> str | None:
    """--region, else AWS_REGION (what the AWS CLI v2 and newer SDKs read; boto3 reads
    only AWS_DEFAULT_REGION), else AWS_DEFAULT_REGION or the profile's."""
    env = os.environ if env is None else env
    return options.region or env.get("AWS_REGION") or profile_region or None


_REGION = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")  # botocore's own rule


def check_region(region: str, name: str = "--region") -> str:
    """A region name as botocore accepts one, else a sentence saying what one looks like."""
    if not _REGION.fullmatch(region):
        hint = " (an endpoint URL goes in the endpoint field)" if "://" in region else ""
        raise ConnectionSetupError(
            f"{name} {region!r} is not a region name: a region looks like eu-west-1{hint}"
        )
    return region


def in_force(
    client: Any, options: ConnectionOptions, env: Mapping[str, str] | None = None
) -> dict[str, tuple[str, str]]:
    """What the connection uses now, field by field, and where each value came from: the
    options, a variable, the profile, or a default."""
    env = os.environ if env is None else env
    endpoint = effective_endpoint(options, env)
    if options.endpoint_url:
        endpoint_from = "this run's own (--endpoint-url, the demo, or the connection form)"
    elif env.get("AWS_ENDPOINT_URL_DYNAMODB"):
        endpoint_from = "AWS_ENDPOINT_URL_DYNAMODB"
    elif env.get("AWS_ENDPOINT_URL"):
        endpoint_from = "AWS_ENDPOINT_URL"
    else:
        endpoint_from = "AWS's own for the region"
    region = client.meta.region_name if client is not None else None
    if options.region:
        region_from = "this run's own (--region, or the connection form)"
    elif env.get("AWS_REGION"):
        region_from = "AWS_REGION"
    elif env.get("AWS_DEFAULT_REGION"):
        region_from = "AWS_DEFAULT_REGION"
    elif region == LOCAL_REGION and is_loopback_url(endpoint):
        region_from = "dynotui's default for a local endpoint"
    else:
        region_from = "the profile's config"
    profile = options.profile or env.get("AWS_PROFILE") or ""
    profile_from = (
        "this run's own (--profile, or the connection form)"
        if options.profile
        else "AWS_PROFILE"
        if env.get("AWS_PROFILE")
        else "the default chain"
    )
    return {
        "profile": (profile, profile_from),
        "region": (region or "", region_from),
        "endpoint_url": (endpoint or "", endpoint_from),
        "connect_timeout": (f"{options.connect_timeout:g}", "dynotui's setting"),
        "read_timeout": (f"{options.read_timeout:g}", "dynotui's setting"),
        "max_attempts": (str(options.max_attempts), "dynotui's setting"),
    }


def _check_timeouts(options: ConnectionOptions) -> None:
    for name, value in (
        ("--connect-timeout", options.connect_timeout),
        ("--read-timeout", options.read_timeout),
    ):
        if not math.isfinite(value) or not 0 < value <= 3600:
            raise ConnectionSetupError(f"{name} must be 0 to 3600 seconds, got {value}")
    if not 1 <= options.max_attempts <= 20:
        raise ConnectionSetupError(f"--max-attempts must be 1 to 20, got {options.max_attempts}")


def make_client(options: ConnectionOptions) -> Any:
    """A DynamoDB client; throttling and dropped connections are retried by botocore.

    Made by botocore's own session, as ``boto3.client("dynamodb")`` makes it: loading
    boto3 too (its S3 transfer manager with it) added a tenth of the client's making to
    every start, for nothing a DynamoDB client uses."""
    import botocore.session
    from botocore.config import Config
    from botocore.exceptions import ProfileNotFound

    _check_timeouts(options)
    endpoint = effective_endpoint(options)
    if endpoint:
        check_endpoint(endpoint, endpoint_source(options))
    local = is_loopback_url(endpoint)
    core = botocore.session.get_session()
    if options.profile is not None:
        core.set_config_variable("profile", options.profile)
    try:
        core.get_scoped_config()  # a profile not in the config (as boto3.Session checks)
    except ProfileNotFound as exc:
        raise ConnectionSetupError(
            f"AWS profile '{options.profile}' is not in your AWS config: check --profile."
        ) from exc
    if local:
        # Credentials for a server on this machine never come from the network: the
        # instance and container metadata endpoints are another host (through any proxy).
        # The chain is made for the profile in force when first asked for: after it is set.
        for provider in NETWORK_CREDENTIAL_PROVIDERS:
            core.get_component("credential_provider").remove(provider)
    profile_region = core.get_config_variable("region")
    region = effective_region(options, profile_region) or (LOCAL_REGION if local else None)
    if region is None:
        raise ConnectionSetupError(
            "no AWS region: pass --region, set AWS_REGION, or set one in your profile."
        )
    check_region(region, "--region" if options.region else "the region")
    found = signin.credentials(core)  # a credential_process runs here
    # A server on this machine with no credentials configured: placeholders it accepts.
    placeholders = local and found is None
    config = Config(
        retries={"mode": "standard", "total_max_attempts": options.max_attempts},
        connect_timeout=options.connect_timeout,
        read_timeout=options.read_timeout,
        user_agent_extra=f"dynotui/{package_version()}",
        # An endpoint judged to be on this machine is reached on this machine: a proxy
        # variable would send the request (the demo's writes too) somewhere else.
        proxies=DIRECT if local else None,
    )
    client = core.create_client(
        "dynamodb",
        region_name=region,
        endpoint_url=options.endpoint_url,
        config=config,
        aws_access_key_id=LOCAL_FALLBACK["aws_access_key_id"] if placeholders else None,
        aws_secret_access_key=LOCAL_FALLBACK["aws_secret_access_key"] if placeholders else None,
    )
    if found is not None:
        signin.check_before_requests(client, found, signin.profile_name(core))
    # Generated code must carry the same placeholders, or it fails where the app did not.
    setattr(client.meta, PLACEHOLDER_MARK, placeholders)
    install_cancel_hook(client)
    fast_items.install(client)
    return client


def placeholder_credentials(client: Any) -> tuple[str, str] | None:
    """The (key id, secret) dynotui put in for a local endpoint with no credentials, or
    None when the client uses the user's own."""
    if getattr(client.meta, PLACEHOLDER_MARK, False):
        return LOCAL_FALLBACK["aws_access_key_id"], LOCAL_FALLBACK["aws_secret_access_key"]
    return None


def describe(client: Any, options: ConnectionOptions) -> str:
    """One line for headers: endpoint, region, profile."""
    return _label(client.meta.endpoint_url, client.meta.region_name, options)


def provisional_label(options: ConnectionOptions) -> str:
    """``describe`` before there is a client: what the options and environment say."""
    endpoint = effective_endpoint(options)
    region = effective_region(options, os.environ.get("AWS_DEFAULT_REGION"))
    if region is None and is_loopback_url(endpoint):
        region = LOCAL_REGION  # as make_client does
    return _label(endpoint or "AWS", region or "…", options)


def _label(endpoint: str, region: str, options: ConnectionOptions) -> str:
    profile = options.profile or os.environ.get("AWS_PROFILE") or "default chain"
    return f"{endpoint} · {region} · profile: {profile}"


# -- cancelling between attempts ---------------------------------------------------------

_reading = threading.local()


def _before_send(**_: Any) -> None:
    token: CancelToken | None = getattr(_reading, "token", None)
    if token is not None and token.cancelled:
        raise ReadCancelled()


def install_cancel_hook(client: Any) -> None:
    """Make every request of ``client`` (retries too) honour the reading thread's token."""
    if getattr(client, "dynotui_hooked", False):
        return  # a LazyClient: make_client installs it when the client is made
    if getattr(client.meta, "_dynotui_cancel_hook", False):
        return
    client.meta.events.register("before-send.dynamodb", _before_send)
    client.meta._dynotui_cancel_hook = True


@contextlib.contextmanager
def cancellable(token: CancelToken) -> Iterator[None]:
    """Within this block, this thread's requests stop once ``token`` is cancelled."""
    previous = getattr(_reading, "token", None)
    _reading.token = token
    try:
        yield
    finally:
        _reading.token = previous
