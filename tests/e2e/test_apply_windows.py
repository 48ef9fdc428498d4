"""Apply windows declared on the Portal: apply outside them is refused before anything is
read or sent, unless --ignore-windows; plan says when the next window opens."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from .harness import EXAMPLES, World, output_of

pytestmark = pytest.mark.e2e

ALWAYS = '    - {schedule: "* * * * *", duration: 1h}\n'


def with_window(tmp_path: Path, window: str) -> Path:
    folder = tmp_path / "hq"
    shutil.copytree(EXAMPLES / "hq", folder)
    portal = folder / "portal.yaml"
    portal.write_text(portal.read_text() + "  applyWindows:\n" + window)
    return folder


def closed_window() -> str:
    """A daily window that opens 12 hours from now, and lasts one hour."""
    hour = (datetime.now(UTC).hour + 12) % 24
    return f'    - {{schedule: "0 {hour} * * *", duration: 1h, timeZone: UTC}}\n'


def test_apply_outside_the_windows_is_refused_and_nothing_sent(demo: World, tmp_path: Path) -> None:
    folder = with_window(tmp_path, closed_window())
    before = demo.api("hq").snapshot()
    refused = demo.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert refused.returncode == 1, output_of(refused)
    assert "refusing to apply outside the Portal's apply windows" in refused.stderr
    assert "the next opens at" in refused.stderr and "--ignore-windows" in refused.stderr
    assert demo.api("hq").snapshot() == before

    dry = demo.orgctl("apply", folder, "--dry-run", portal="hq")
    assert dry.returncode == 0, output_of(dry)

    planned = demo.orgctl("plan", folder, portal="hq")
    assert planned.returncode == 0, output_of(planned)
    assert "Apply window: closed; the next opens at" in planned.stdout

    forced = demo.orgctl("apply", folder, "--auto-approve", "--ignore-windows", portal="hq")
    assert forced.returncode == 0, output_of(forced)
    assert "Field Analyst" in demo.api("hq").roles()


def test_apply_inside_a_window_goes_ahead(demo: World, tmp_path: Path) -> None:
    folder = with_window(tmp_path, ALWAYS)
    applied = demo.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    planned = demo.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    assert "Apply window: open now, until" in planned.stderr
    assert planned.stdout.lstrip().startswith("{")
