"""One conversion of loose values, used by the manifests, the live records and the
planner: the same text is the same value everywhere, in any time zone."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import date, datetime

import pytest

from reconciler import values
from reconciler.plan.normalize import canonical, fields_at

START_UTC_MS = 1796083200000  # 2026-12-01T00:00:00Z


@pytest.fixture
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process's local time zone set to New York, as on a laptop there."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("new_york")
@pytest.mark.parametrize(
    "given",
    [
        "2026-12-01T00:00:00",
        "2026-12-01T00:00:00Z",
        "2026-11-30T19:00:00-05:00",
        datetime(2026, 12, 1),
        date(2026, 12, 1),
        "1796083200000",
        START_UTC_MS,
    ],
)
def test_a_time_is_the_same_instant_in_any_time_zone(given: object) -> None:
    assert values.epoch_ms(given) == START_UTC_MS
    assert canonical(fields_at("Workspace/c1/ws1"), "startTime", given) == START_UTC_MS


@pytest.mark.parametrize("given", [300_000_000_000_000, -5, "10000-01-01T00:00:00Z"])
def test_a_time_outside_what_can_be_shown_is_refused(given: object) -> None:
    with pytest.raises(ValueError):
        values.epoch_ms(given)


@pytest.mark.parametrize(
    ("given", "expected"), [("1024", 1024), ("1024.0", 1024), (1024.5, 1024.5), (" 7 ", 7)]
)
def test_numbers(given: object, expected: object) -> None:
    assert values.number(given) == expected


@pytest.mark.parametrize("given", ["nan", "inf", "ten", True])
def test_what_is_not_a_finite_number_is_refused(given: object) -> None:
    with pytest.raises(ValueError):
        values.number(given)


def test_a_fraction_is_not_a_whole_number() -> None:
    assert values.integer("5.0") == 5
    with pytest.raises(ValueError):
        values.integer("5.5")


@pytest.mark.parametrize(
    ("given", "expected"), [("true", True), ("False", False), (True, True), ("", None)]
)
def test_booleans(given: object, expected: object) -> None:
    assert values.boolean(given) is expected
