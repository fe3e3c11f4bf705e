"""Is an endpoint on this machine? Decided by the reading the client connects with.

botocore hands the endpoint URL to urllib3, which connects to the host *its*
``parse_url`` finds; a check that reads the URL with another parser can be fooled
(``http://192.0.2.1\\@127.0.0.1:8911``: ``urlsplit`` sees 127.0.0.1 after the ``@``,
urllib3 connects to 192.0.2.1). So the URL is refused when it holds userinfo (``@``), a
backslash, whitespace or a control character, or when urllib3 and ``urlsplit`` read its
scheme, host or port differently; then the host must be ``localhost`` or an IP address
written in full, and every address it resolves to must be a loopback address.

Written-out forms only, by decision: ``127.1``, ``0x7f000001`` and ``2130706433`` are
loopback to ``inet_aton`` but not to ``ipaddress`` or to every client, so they are
refused (write 127.0.0.1); ``localhost.evil.example`` is a DNS name, never resolved
here; ``[::ffff:127.0.0.1]`` (IPv4-mapped) reaches 127.0.0.1 only where the system maps
it, and is refused (write 127.0.0.1 or [::1]); zone ids (``[::1%lo]``) too.

A loopback URL is only half the answer: botocore sends every request through the proxy
that HTTP_PROXY or HTTPS_PROXY name unless NO_PROXY matches the host, so a client whose
loopback-ness matters is made with ``Config(proxies=DIRECT)`` (an empty mapping that
botocore then uses instead of the environment's), and ``proxy_in_use`` reads a client's
proxy the way botocore will.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

Resolver = Callable[..., Sequence[Any]]

# botocore reads the environment's proxies only when a client's Config has ``proxies``
# None; with this empty mapping it connects straight to the endpoint.
DIRECT: dict[str, str] = {}


# A URL written this plainly (lower case, localhost or a dotted IPv4 address, a port of
# digits, nothing after but a slash) is read alike by urllib3 and urllib, as
# tests/test_loopback.py checks against both: only the others are read by urllib3 too,
# which spares its import (a tenth of a second) where the app labels its connection at
# start-up.
_PLAIN = re.compile(r"(https?)://(localhost|[0-9]{1,3}(?:\.[0-9]{1,3}){3})(?::([0-9]{1,5}))?/?")


def plain_reading(url: str) -> tuple[str, str, int | None] | None:
    """The scheme, host and port of a plainly written ``url`` (see ``_PLAIN``), or None
    when it must be read by both parsers."""
    found = _PLAIN.fullmatch(url)
    if found is None:
        return None
    scheme, host, port = found.groups()
    if port is not None and int(port) > 65535:
        return None  # refused by both parsers, with their words
    return scheme, host, None if port is None else int(port)


def _both_readings(url: str) -> tuple[str, str, int | None] | str:
    """The scheme, host and port urllib3 connects to, or why the two parsers disagree."""
    from urllib3.exceptions import LocationParseError
    from urllib3.util import parse_url

    try:
        connect = parse_url(url)
        split = urlsplit(url)
        split_port = split.port
    except (LocationParseError, ValueError):
        return "it is not a URL both urllib3 and urllib read"
    host = (connect.host or "").removeprefix("[").removesuffix("]")
    if (connect.scheme, host.lower(), connect.port) != (
        split.scheme.lower(),
        (split.hostname or "").lower(),
        split_port,
    ):
        return "urllib3 (which connects) and urllib read its host differently"
    return connect.scheme or "", host, connect.port


def _addresses(host: str, port: int | None, resolve: Resolver) -> list[str]:
    found = resolve(host, port or 80, type=socket.SOCK_STREAM)
    return [info[4][0] for info in found]


def loopback_problem(url: str | None, resolve: Resolver = socket.getaddrinfo) -> str | None:
    """Why ``url`` is not certainly an endpoint on this machine, or None when it is."""
    if not url:
        return "no endpoint is set"
    if "@" in url:
        return "it holds an '@' (a user name part, or text a client may read as one)"
    if "\\" in url:
        return "it holds a backslash, which URL parsers read differently"
    if any(c.isspace() or not c.isprintable() for c in url):
        return "it holds whitespace or a control character"
    reading = plain_reading(url) or _both_readings(url)
    if isinstance(reading, str):
        return reading
    scheme, host, port = reading
    if scheme not in ("http", "https"):
        return "it is not an http or https URL"
    if not host:
        return "it names no host"
    if host.lower() != "localhost":
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return (
                f"its host {host!r} is neither localhost nor an IP address written in full "
                "(127.0.0.1, [::1])"
            )
        if isinstance(address, ipaddress.IPv6Address) and (
            address.ipv4_mapped is not None or address.scope_id
        ):
            return f"its host {host!r} is an IPv6 form of another address: write 127.0.0.1"
    try:
        addresses = _addresses(host, port, resolve)
    except (OSError, UnicodeError):
        return f"its host {host!r} does not resolve"
    if not addresses:
        return f"its host {host!r} does not resolve"
    for found in addresses:
        if not ipaddress.ip_address(found.split("%", 1)[0]).is_loopback:
            return f"its host {host!r} resolves to {found}, which is not a loopback address"
    return None


def is_loopback_url(url: str | None, resolve: Resolver = socket.getaddrinfo) -> bool:
    """True when every reading of ``url`` points at a loopback address of this machine."""
    return loopback_problem(url, resolve) is None


def proxy_in_use(url: str, proxies: Mapping[str, str] | None) -> str | None:
    """The proxy a botocore client with these ``proxies`` (its Config's) sends a request for
    ``url`` through, or None when it connects directly: read by botocore's own functions
    (None means the environment's HTTP_PROXY/HTTPS_PROXY less NO_PROXY)."""
    from botocore.httpsession import ProxyConfiguration
    from botocore.utils import get_environ_proxies

    chosen = get_environ_proxies(url) if proxies is None else dict(proxies)
    found: str | None = ProxyConfiguration(proxies=chosen).proxy_url_for(url)
    return found


def client_proxy(client: Any) -> str | None:
    """The proxy ``client``'s requests go through, or None when they go straight out."""
    return proxy_in_use(client.meta.endpoint_url, client.meta.config.proxies)


PROXY_VARIABLES = (
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
)


def proxy_variables(env: Mapping[str, str]) -> list[str]:
    """The proxy variables set in ``env``, by name."""
    return [name for name in PROXY_VARIABLES if env.get(name)]
