"""Command-line options shared by every command that talks to DynamoDB."""

from __future__ import annotations

import argparse

from dynotui.core.connection import ConnectionOptions


def add_connection_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("connection (as in the AWS CLI; AWS_* variables work too)")
    group.add_argument("--profile", help="AWS profile name (default: AWS_PROFILE or default)")
    group.add_argument("--region", help="AWS region (default: AWS_REGION or the profile's)")
    group.add_argument(
        "--endpoint-url",
        help="DynamoDB endpoint, e.g. http://localhost:8000 (default: AWS_ENDPOINT_URL_DYNAMODB)",
    )
    group.add_argument("--debug", action="store_true", help="show tracebacks on errors")


def connection_options(args: argparse.Namespace) -> ConnectionOptions:
    return ConnectionOptions(
        profile=args.profile, region=args.region, endpoint_url=args.endpoint_url
    )
