"""What an index's writes and storage cost: a dated default, or the user's own prices.

The defaults are the published **us-east-1** list prices for the Standard table class,
written down here and never fetched: on-demand writes at **$0.625 per million write
request units** (since on-demand throughput was halved on 1 November 2024), provisioned
writes at **$0.00065 per WCU-hour**, and storage at **$0.25 per GB-month** (past the free
25 GB; a GB here is 2^30 bytes). A GSI's writes and storage are billed like the table's.
``--price-write-million``, ``--price-wcu-hour``, ``--price-storage-gb-month`` or
``[pricing]`` in config.toml (``write_per_million``, ``wcu_hour``, ``storage_gb_month``)
set your own; a flag beats the file, which beats the default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from dynotui.core import config
from dynotui.core.money import PriceList, Rate
from dynotui.dynamodb.pricing import DEFAULT_REGION, PRICES_AS_OF, UNITS_PER_RCU_HOUR, price

DEFAULT_WRITE_PER_MILLION = Decimal("0.625")
DEFAULT_WCU_HOUR = Decimal("0.00065")
DEFAULT_STORAGE_GB_MONTH = Decimal("0.25")
GB = 2**30
WRITE_UNIT = "WCU"
STORAGE_UNIT = "GB-month"


@dataclass(frozen=True)
class IndexPrices:
    writes: PriceList  # per write unit
    storage: PriceList  # per GB-month


def _pick(
    flag: Any, flag_name: str, key: str, table: Mapping[str, Any], default: Decimal
) -> tuple[Decimal, str | None]:
    if flag is not None:
        return price(flag, flag_name), f"{key} from {flag_name}"
    if key in table:
        return price(table[key], f"[pricing] {key}"), f"{key} from config.toml"
    return default, None


def index_prices(
    *,
    write_per_million: Any = None,
    wcu_hour: Any = None,
    storage_gb_month: Any = None,
    settings: Mapping[str, Any] | None = None,
) -> IndexPrices:
    table = config.table("pricing", settings)
    on_demand, a = _pick(
        write_per_million,
        "--price-write-million",
        "write_per_million",
        table,
        DEFAULT_WRITE_PER_MILLION,
    )
    provisioned, b = _pick(wcu_hour, "--price-wcu-hour", "wcu_hour", table, DEFAULT_WCU_HOUR)
    storage, c = _pick(
        storage_gb_month,
        "--price-storage-gb-month",
        "storage_gb_month",
        table,
        DEFAULT_STORAGE_GB_MONTH,
    )
    default = f"{DEFAULT_REGION} list prices as of {PRICES_AS_OF}, not fetched"
    given = [s for s in (a, b) if s]
    write_source = "; ".join([*given, *([] if len(given) == 2 else [default])])
    storage_source = c or default
    return IndexPrices(
        writes=PriceList(
            unit=WRITE_UNIT,
            rates=(
                Rate(
                    "on-demand",
                    on_demand / 1_000_000,
                    f"${on_demand} per million write request units",
                ),
                Rate(
                    "provisioned",
                    provisioned / UNITS_PER_RCU_HOUR,
                    f"${provisioned} per WCU-hour, fully used "
                    f"({UNITS_PER_RCU_HOUR:,} units an hour)",
                ),
            ),
            source=write_source,
        ),
        storage=PriceList(
            unit=STORAGE_UNIT,
            rates=(Rate("storage", storage, f"${storage} per GB-month (GB = 2^30 bytes)"),),
            source=storage_source,
        ),
    )
