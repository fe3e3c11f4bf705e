"""What DynamoDB read capacity costs: a dated default, or the user's own prices.

The default is the published **us-east-1** list price, written down here (dynotui never
fetches prices): on-demand reads at **$0.125 per million read request units**, the
price since AWS halved on-demand throughput prices on 1 November 2024, and provisioned
reads at **$0.00013 per RCU-hour**. Other regions, reserved capacity, the free tier and
later price changes differ: ``--price-read-million`` / ``--price-rcu-hour``, or
``[pricing]`` in ``config.toml`` (``read_per_million``, ``rcu_hour``, and a ``region``
label), set your own. Every amount shown is an estimate.

Consistency is already in the units: DynamoDB reports an eventually consistent 4 KB
read as 0.5 units and a strongly consistent one as 1 (a transactional read as 2), so a
strongly consistent page costs twice as much with no extra factor here. A provisioned
RCU-hour serves 3,600 units (one per second); the per-unit figure assumes that
capacity is fully used, since idle provisioned capacity is billed all the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from dynotui.core.errors import InputError
from dynotui.core.money import PriceList, Rate
from dynotui.core.numbers import decimal_number, shown_value

UNIT = "RCU"  # DynamoCost.unit
DEFAULT_REGION = "us-east-1"
PRICES_AS_OF = "2024-11-01"
DEFAULT_READ_PER_MILLION = Decimal("0.125")  # USD per million read request units
DEFAULT_RCU_HOUR = Decimal("0.00013")  # USD per provisioned RCU-hour
UNITS_PER_RCU_HOUR = 3600
# The index-cost keys are read by ``what_if/prices.py`` (writes and storage of an index).
INDEX_KEYS = ("write_per_million", "wcu_hour", "storage_gb_month")
SETTINGS_KEYS = ("read_per_million", "rcu_hour", "region", *INDEX_KEYS)


def price(value: Any, where: str) -> Decimal:
    refused = InputError(f"{where} must be a price in USD, like 0.125; got {shown_value(value)}")
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise refused
    try:
        # A flag's text in ASCII digits (Arabic-Indic digits and "1_0" are no price).
        price = decimal_number(value, where) if isinstance(value, str) else Decimal(str(value))
    except (ArithmeticError, InputError):
        raise refused from None
    if not price.is_finite() or price < 0:
        raise InputError(
            f"{where} must be a finite price of 0 or more USD; got {shown_value(value)}"
        )
    return price


def read_prices(
    *,
    read_per_million: str | float | None = None,
    rcu_hour: str | float | None = None,
    settings: Mapping[str, Any] | None = None,
) -> PriceList:
    """The prices in force: a flag beats ``[pricing]`` in the settings, which beats the
    dated default. ``settings`` is the whole parsed settings file (read when None)."""
    from dynotui.core import config  # read when prices are, not when options are parsed

    table = config.table("pricing", settings)
    unknown = sorted(set(table) - set(SETTINGS_KEYS))
    if unknown:
        raise InputError(
            f"[pricing] in the settings file {config.config_path()} has unknown keys "
            f"{', '.join(unknown)}; known are {', '.join(SETTINGS_KEYS)}"
        )
    sources = []
    if read_per_million is not None:
        on_demand = price(read_per_million, "--price-read-million")
        sources.append("on-demand from --price-read-million")
    elif "read_per_million" in table:
        on_demand = price(table["read_per_million"], "[pricing] read_per_million")
        sources.append("on-demand from config.toml")
    else:
        on_demand = DEFAULT_READ_PER_MILLION
    if rcu_hour is not None:
        provisioned = price(rcu_hour, "--price-rcu-hour")
        sources.append("provisioned from --price-rcu-hour")
    elif "rcu_hour" in table:
        provisioned = price(table["rcu_hour"], "[pricing] rcu_hour")
        sources.append("provisioned from config.toml")
    else:
        provisioned = DEFAULT_RCU_HOUR
    region = table.get("region")
    if region is not None and not isinstance(region, str):
        raise InputError("[pricing] region must be text, like 'eu-west-1'")
    overridden = len(sources)
    if region and overridden:
        sources.append(f"prices of {region}")
    default = f"{DEFAULT_REGION} list prices as of {PRICES_AS_OF}, not fetched"
    if overridden < 2:
        sources.append(("the rest " if overridden else "") + default)
    source = "; ".join(sources)
    return PriceList(
        unit=UNIT,
        rates=(
            Rate(
                "on-demand",
                on_demand / 1_000_000,
                f"${on_demand} per million read request units",
            ),
            Rate(
                "provisioned",
                provisioned / UNITS_PER_RCU_HOUR,
                f"${provisioned} per RCU-hour, fully used ({UNITS_PER_RCU_HOUR:,} units an hour)",
            ),
        ),
        source=source,
    )
