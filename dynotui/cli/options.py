"""Command-line options shared by every command that talks to DynamoDB."""

from __future__ import annotations

import argparse

from dynotui.cli.number_flags import seconds, whole
from dynotui.dynamodb.connection import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_READ_TIMEOUT,
    ConnectionOptions,
)


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Defaults shown in --help, for options that have one worth showing."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "%(default)" in text:
            return text
        return super()._get_help_string(action) or text


def add_connection_options(
    parser: argparse.ArgumentParser, endpoint_help: str | None = None
) -> None:
    """``endpoint_help`` replaces the endpoint's help where the command reads it its own way."""
    group = parser.add_argument_group("connection (as in the AWS CLI; AWS_* variables work too)")
    group.add_argument("--profile", help="AWS profile name (default: AWS_PROFILE or default)")
    group.add_argument(
        "--region", help="AWS region (default: AWS_REGION, AWS_DEFAULT_REGION or the profile's)"
    )
    group.add_argument(
        "--endpoint-url",
        help=endpoint_help
        or "DynamoDB endpoint, e.g. http://localhost:8000 (default: AWS_ENDPOINT_URL_DYNAMODB)",
    )
    group.add_argument(
        "--connect-timeout",
        type=seconds,
        default=DEFAULT_CONNECT_TIMEOUT,
        metavar="SECONDS",
        help="give up connecting after this long",
    )
    group.add_argument(
        "--read-timeout",
        type=seconds,
        default=DEFAULT_READ_TIMEOUT,
        metavar="SECONDS",
        help="give up waiting for an answer after this long (per attempt)",
    )
    group.add_argument(
        "--max-attempts",
        type=whole,
        default=DEFAULT_MAX_ATTEMPTS,
        metavar="N",
        help="attempts per request, retries of throttling and dropped connections included",
    )
    group.add_argument("--debug", action="store_true", help="show tracebacks on errors")


def connection_options(args: argparse.Namespace) -> ConnectionOptions:
    return ConnectionOptions(
        profile=args.profile,
        region=args.region,
        endpoint_url=args.endpoint_url,
        connect_timeout=args.connect_timeout,
        read_timeout=args.read_timeout,
        max_attempts=args.max_attempts,
    )
