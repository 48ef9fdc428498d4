"""Apply windows: the cron subset, durations, time zones, open now and the next opening."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import cli
from reconciler.windows import Window, WindowError, parse_cron, parse_duration, window_state

WEEKNIGHTS = Window("0 22 * * 1-5", "4h", "Europe/Berlin")


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_cron_fields() -> None:
    cron = parse_cron("*/15 9-17/4 1,15 * 0")
    assert cron.minutes == {0, 15, 30, 45}
    assert cron.hours == {9, 13, 17}
    assert cron.days == {1, 15} and cron.weekdays == {0}
    assert parse_cron("0 0 * * 7").weekdays == {0}, "7 is Sunday too"
    assert parse_cron("5/20 * * * *").minutes == {5, 25, 45}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("0 22 * *", "5 fields"),
        ("60 * * * *", "minute '60' is outside 0-59"),
        ("0 25 * * *", "hour '25'"),
        ("0 0 0 * *", "day of month '0'"),
        ("x * * * *", "not a number"),
        ("0 0 * * 1-", "not a number"),
    ],
)
def test_bad_cron_says_which_field(text: str, words: str) -> None:
    with pytest.raises(WindowError, match=words):
        parse_cron(text)


def test_durations() -> None:
    assert parse_duration("1h30m").total_seconds() == 5400
    assert parse_duration("2d").days == 2
    for bad in ("", "0m", "4 hours", "32d"):
        with pytest.raises(WindowError):
            parse_duration(bad)


def test_open_in_its_own_time_zone() -> None:
    # 22:00 in Berlin is 21:00 UTC in winter and 20:00 UTC in summer.
    assert WEEKNIGHTS.open_at(at("2026-01-05T21:30:00")) == at("2026-01-06T01:00:00")
    assert WEEKNIGHTS.open_at(at("2026-01-05T20:59:00")) is None
    assert WEEKNIGHTS.open_at(at("2026-07-06T20:00:00")) == at("2026-07-07T00:00:00")
    # Friday's window runs past midnight into Saturday; Saturday night has none.
    assert WEEKNIGHTS.open_at(at("2026-01-10T00:30:00")) is not None
    assert WEEKNIGHTS.open_at(at("2026-01-10T21:30:00")) is None


def test_next_window_and_sentence() -> None:
    state = window_state((WEEKNIGHTS,), at("2026-01-10T12:00:00"))  # a Saturday
    assert state.open_until is None
    assert state.next_start == at("2026-01-12T21:00:00")  # Monday 22:00 in Berlin
    assert state.sentence() == "Apply window: closed; the next opens at 2026-01-12T21:00:00Z."
    open_state = window_state((WEEKNIGHTS,), at("2026-01-12T21:00:00"))
    assert open_state.sentence() == "Apply window: open now, until 2026-01-13T01:00:00Z."


def test_both_day_fields_restricted_match_either() -> None:
    first_or_monday = Window("0 12 1 * 1", "1h")
    assert first_or_monday.open_at(at("2026-01-01T12:10:00")) is not None  # a Thursday, the 1st
    assert first_or_monday.open_at(at("2026-01-05T12:10:00")) is not None  # a Monday
    assert first_or_monday.open_at(at("2026-01-06T12:10:00")) is None


PORTAL = """apiVersion: orgctl/v1
kind: Portal
metadata: {{name: hq}}
spec:
  url: https://gis.example.com/portal/sharing/rest
  deployment: self-hosted
  version: "11.3"
  auth: {{tokenEnv: ORGCTL_TOKEN}}
  applyWindows:
    - schedule: "0 22 * * 1-5"
      duration: 4h
      timeZone: {zone}
    - schedule: "{cron}"
      duration: 30m
"""


def test_validate_names_file_line_and_reason(tmp_path: Path) -> None:
    (tmp_path / "portal.yaml").write_text(PORTAL.format(zone="Mars/Olympus", cron="0 9 * 13 *"))
    result = CliRunner().invoke(cli, ["validate", str(tmp_path)])
    assert result.exit_code == 1
    assert "portal.yaml:12" in result.output and "Mars/Olympus" in result.output
    assert "portal.yaml:13" in result.output and "month '13'" in result.output
    (tmp_path / "portal.yaml").write_text(PORTAL.format(zone="Europe/Berlin", cron="0 9 * * *"))
    assert CliRunner().invoke(cli, ["validate", str(tmp_path)]).exit_code == 0
