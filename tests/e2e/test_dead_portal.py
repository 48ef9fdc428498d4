"""A portal that stops answering mid-apply, or a pre-issued token that expires mid-apply
(README: a portal that stops answering): the run stops sending within seconds, tells the
calls not sent as one row, and ends saying what holds the lock and how to break it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.cli import env_with
from tests.service.harness import Api

from .bulk import (
    PORTAL,
    Running,
    bulk_manifests,
    bulk_state,
    journal_events,
    unanswered_starts,
    wait_for_done,
)
from .harness import ADMIN, Serve

pytestmark = pytest.mark.e2e

CALLS = 300
PARALLELISM = 4


def last_line_names_the_lock(output: list[str], run_id: str, manifests: Path) -> None:
    last = output[-1]
    assert "The apply lock is still held" in last, output
    assert f"orgctl force-unlock {run_id} {manifests}" in last, output


def test_a_portal_killed_mid_apply_stops_it_within_seconds(serve: Serve, tmp_path: Path) -> None:
    world = serve(bulk_state(tmp_path, CALLS))
    manifests = bulk_manifests(tmp_path, CALLS)
    journal = tmp_path / "apply.jsonl"
    args: list[str | Path] = ["apply", manifests, "--auto-approve", "--journal", journal]
    applying = Running([*args, "--parallelism", str(PARALLELISM)], world.env(PORTAL), tmp_path)
    wait_for_done(journal, 20, applying)
    world.service.kill()
    killed = time.monotonic()
    code = applying.wait(90)
    ended = time.monotonic()
    after = applying.since(killed)

    assert code == 1, applying.output
    assert ended - killed < 30, f"{ended - killed:.1f}s from the kill to the exit"
    assert len(after) < 20, "\n".join(after)
    assert "Traceback" not in applying.output
    events = journal_events(journal)
    not_sent = [e for e in events if e["event"] == "not-sent"]
    assert len(not_sent) > CALLS // 2, applying.output  # the rest was never tried
    assert "stopped answering" in not_sent[-1]["error"]["message"]
    assert unanswered_starts(events) == []
    retries = [line for line in after if "trying again in" in line]
    assert len(retries) <= 3, "\n".join(after)
    assert any(" not sent " in line and "calls (#" in line for line in after), "\n".join(after)
    last_line_names_the_lock(after, events[0]["run"], manifests)


def test_a_pre_issued_token_that_expires_mid_apply_stops_it(serve: Serve, tmp_path: Path) -> None:
    world = serve(bulk_state(tmp_path, CALLS))
    manifests = bulk_manifests(tmp_path, CALLS)
    journal = tmp_path / "apply.jsonl"
    api = Api(world.service.url)
    issued = api.generate_token(PORTAL, *ADMIN, expiration=10)["token"]
    api.close()
    env = env_with(
        ORGCTL_PORTAL_URL=f"{world.service.url}/{PORTAL}/sharing/rest", ORGCTL_TOKEN=issued
    )
    args: list[str | Path] = ["apply", manifests, "--auto-approve", "--journal", journal]
    applying = Running([*args, "--parallelism", str(PARALLELISM)], env, tmp_path)
    wait_for_done(journal, 20, applying)
    world.advance_clock(1)  # an hour later: the 10-minute token has expired
    moved = time.monotonic()
    code = applying.wait(90)
    after = applying.since(moved)

    assert code == 1, applying.output
    assert issued not in applying.output
    events = journal_events(journal)
    refused = [e for e in events if e["event"] == "failed"]
    assert 1 <= len(refused) <= PARALLELISM, applying.output  # only those already in flight
    assert all("498" in e["error"]["message"] for e in refused), refused
    not_sent = [e for e in events if e["event"] == "not-sent"]
    assert len(not_sent) > CALLS // 2, applying.output
    assert "refused the credentials, and they cannot be renewed" in not_sent[-1]["error"]["message"]
    assert len(after) < 20, "\n".join(after)
    last_line_names_the_lock(after, events[0]["run"], manifests)
