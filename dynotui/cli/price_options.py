"""The price flags: what a DynamoDB read unit costs, overriding config and the default."""

from __future__ import annotations

import argparse

from dynotui.core.money import PriceList
from dynotui.dynamodb.pricing import DEFAULT_RCU_HOUR, DEFAULT_READ_PER_MILLION, read_prices


def add_price_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "price estimate (DynamoDB; [pricing] in config.toml sets them too)"
    )
    group.add_argument(
        "--price-read-million",
        metavar="USD",
        help=f"on-demand: USD per million read request units (default {DEFAULT_READ_PER_MILLION}, "
        "us-east-1)",
    )
    group.add_argument(
        "--price-rcu-hour",
        metavar="USD",
        help=f"provisioned: USD per RCU-hour (default {DEFAULT_RCU_HOUR}, us-east-1)",
    )


def prices_from_args(args: argparse.Namespace) -> PriceList:
    """The prices in force for this run; bad flags or settings are an InputError."""
    return read_prices(
        read_per_million=getattr(args, "price_read_million", None),
        rcu_hour=getattr(args, "price_rcu_hour", None),
    )
