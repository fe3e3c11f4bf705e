"""Units turned into an estimated price: generic, so any source's unit can be priced.

A ``PriceList`` prices one cost unit (DynamoDB's RCU) in one or more ways of paying
(on-demand, provisioned); the database package knows the figures and where they came
from. Every amount is labelled an estimate: the bill depends on the region, the
table's capacity mode, reserved capacity and free tiers, none of which dynotui sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

PAGE_VIEWS = 1_000_000  # "per million page views of this shape"


@dataclass(frozen=True, slots=True)
class Rate:
    """One way of paying for a unit."""

    name: str  # "on-demand", "provisioned"
    usd_per_unit: Decimal
    basis: str  # the published figure in its own terms, and what it assumes

    def of(self, units: float) -> Decimal:
        return self.usd_per_unit * Decimal(repr(float(units)))


@dataclass(frozen=True, slots=True)
class PriceList:
    unit: str  # the cost unit these rates price
    rates: tuple[Rate, ...]
    source: str  # where the figures came from: a dated default, a flag, the config file

    def as_json(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "source": self.source,
            "rates": {
                r.name: {"usd_per_unit": json_usd(r.usd_per_unit), "basis": r.basis}
                for r in self.rates
            },
            "estimate": True,
        }


def json_usd(amount: Decimal) -> float:
    """An amount for JSON: six significant digits are more than an estimate holds."""
    return float(f"{amount:.6g}")


def usd(amount: Decimal) -> str:
    """Dollars with three significant digits, never an exponent: ``$0.000000188``."""
    if amount == 0:
        return "$0"
    if abs(amount) >= 100:
        return f"${amount:,.0f}"
    digits = amount.adjusted()  # the exponent of the leading digit
    places = max(2, 2 - digits)
    text = f"{round(amount, places):.{places}f}"
    if "." in text:
        whole, fraction = text.split(".")
        fraction = fraction.rstrip("0").ljust(2, "0")
        text = f"{whole}.{fraction}"
    return f"${text}"


@dataclass(frozen=True, slots=True)
class PriceEstimate:
    """What an amount of units costs, in each way of paying."""

    what: str  # "this page", "this session", "per million page views of this shape"
    units: float | None  # None: the source reported no figure to price
    amounts: tuple[tuple[str, Decimal], ...]  # (rate name, USD)

    def amounts_text(self) -> str:
        """The amounts alone: "$0.0000067 on-demand, $0.0000019 provisioned"."""
        if self.units is None:
            return "not reported, no estimate"
        return ", ".join(f"{usd(amount)} {name}" for name, amount in self.amounts)

    def text(self) -> str:
        return f"{self.what}: {self.amounts_text()}"

    def as_json(self) -> dict[str, Any]:
        return {
            "units": self.units,
            "usd": {name: json_usd(amount) for name, amount in self.amounts},
        }


def estimate(prices: PriceList, what: str, units: float | None) -> PriceEstimate:
    if units is None:
        return PriceEstimate(what, None, ())
    return PriceEstimate(what, units, tuple((r.name, r.of(units)) for r in prices.rates))


WHAT_PAGE = "this page"
WHAT_SESSION = "this session"
WHAT_SHAPE = "per million page views of this shape"


def estimates(
    prices: PriceList | None, unit: str | None, figures: Sequence[tuple[str, float | None]]
) -> list[PriceEstimate]:
    """Each (what, units) priced; empty when ``unit`` has no price here (PostgreSQL
    buffers are not billed per unit). Units None is "not reported", never 0."""
    if prices is None or unit != prices.unit:
        return []
    return [estimate(prices, what, units) for what, units in figures]


def per_page_views(mean_per_page: float | None) -> float | None:
    """Units for a million views of pages that cost ``mean_per_page`` on average."""
    return None if mean_per_page is None else mean_per_page * PAGE_VIEWS
