"""The apply lock against clocks that jump and applies that stall (README: the apply
lock): a rival breaks a lease only after seeing it unchanged for a whole period by its own
clock, whatever the portal's clock says; the holder reads its lease back at each renewal
and stops sending once it is taken; a stuck apply stops renewing; a waiting apply says
whom it waits for."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from orgctl_service.testing.proxy import FaultyProxy
from reconciler.apply.lock import KEY, ApplyLock, LeaseStore
from reconciler.live.client import PortalClient

from .bulk import PORTAL, Running, bulk_manifests, bulk_state, journal_events, wait_for_done
from .harness import EXAMPLES, Serve, World, output_of
from .test_apply_lock import lease, put_lease

pytestmark = pytest.mark.e2e

CALLS = 100


def stored(world: World) -> dict[str, Any] | None:
    api = world.api(PORTAL)
    keys = [r["key"] for r in api.listing("portals/self/resources", "resources")]
    return api.get(f"portals/self/resources/{KEY}") if KEY in keys else None


def slow_apply(
    world: World, tmp_path: Path, proxy: FaultyProxy, lease_period: str
) -> tuple[Running, Path]:
    """An apply of CALLS calls, one at a time, each held 0.1 s by the proxy: 10 s or more."""
    journal = tmp_path / "holder.jsonl"
    env = world.env(PORTAL)
    env["ORGCTL_PORTAL_URL"] = f"{proxy.url}/{PORTAL}/sharing/rest"
    env["ORGCTL_LOCK_LEASE"] = lease_period
    args: list[str | Path] = ["apply", tmp_path / "bulk", "--auto-approve", "--journal", journal]
    return Running([*args, "--parallelism", "1"], env, tmp_path), journal


def test_a_portal_clock_jump_does_not_hand_a_live_lease_to_a_rival(
    serve: Serve, tmp_path: Path
) -> None:
    world = serve(bulk_state(tmp_path, CALLS))
    manifests = bulk_manifests(tmp_path, CALLS)
    with FaultyProxy(world.service.url, slow=("/setPrivileges",), delay=0.1) as proxy:
        holder, journal = slow_apply(world, tmp_path, proxy, "6s")
        wait_for_done(journal, 5, holder)
        # The node behind the load balancer runs 3 hours ahead: by its clock the holder's
        # lease ended long ago. The rival either reads it so, and watches it change as the
        # holder renews it, or reads it renewed by then: refused either way.
        world.advance_clock(3)
        rival_journal = tmp_path / "rival.jsonl"
        env = {**world.env(PORTAL), "ORGCTL_LOCK_LEASE": "6s"}
        rival = world.orgctl(
            "apply", manifests, "--auto-approve", "--journal", rival_journal, env=env, portal=PORTAL
        )
        assert holder.wait(120) == 0, holder.output

    assert rival.returncode == 1, output_of(rival)
    assert "the portal is locked by another apply" in rival.stderr
    assert not [e for e in journal_events(rival_journal) if e["event"] == "start"]
    assert "Converged" in holder.output
    events = journal_events(journal)
    assert len([e for e in events if e["event"] == "done"]) == CALLS
    assert stored(world) is None


def test_the_holder_stops_sending_once_its_lease_is_taken(serve: Serve, tmp_path: Path) -> None:
    world = serve(bulk_state(tmp_path, CALLS))
    bulk_manifests(tmp_path, CALLS)
    with FaultyProxy(world.service.url, slow=("/setPrivileges",), delay=0.1) as proxy:
        holder, journal = slow_apply(world, tmp_path, proxy, "3s")  # renewed every second
        wait_for_done(journal, 5, holder)
        started_before = take_the_lease(world, holder, journal, "feedfeedfeedfeed")
        assert holder.wait(60) == 1, holder.output

    events = journal_events(journal)
    started_after = len([e for e in events if e["event"] == "start"]) - started_before
    assert started_after <= 15, holder.output  # about a second of calls: until the renewal
    not_sent = [e for e in events if e["event"] == "not-sent"]
    assert len(not_sent) >= CALLS - 30, holder.output
    assert "taken from this run" in not_sent[-1]["error"]["message"]
    assert "feedfeedfeedfeed" in not_sent[-1]["error"]["message"]
    assert stored(world) == lease("feedfeedfeedfeed")  # the new holder's lease is kept


def take_the_lease(world: World, holder: Running, journal: Path, lock_id: str) -> int:
    """Store another run's lease, as a rival that verifies its write would: the portal's
    resources have no compare-and-swap, so a renewal read just before this write and sent
    just after it overwrites it (the rival, reading back, would back off; safety holds),
    and the take is repeated until it stays. The calls the holder had started by the
    take that stayed."""
    api = world.api(PORTAL)
    taker = json.dumps(lease(lock_id))
    deadline = time.monotonic() + 30
    while True:
        started = len([e for e in journal_events(journal) if e["event"] == "start"])
        api.post("portals/self/addResource", key=KEY, text=taker, access="orgprivate")
        time.sleep(1.5)  # past the holder's next renewal (every second)
        if holder.process.poll() is not None or stored(world) == lease(lock_id):
            return started
        assert time.monotonic() < deadline, holder.output


def client_of(world: World) -> PortalClient:
    env = world.env("hq")
    return PortalClient(env["ORGCTL_PORTAL_URL"], env=env)


def test_a_lease_is_renewed_only_while_the_apply_makes_progress(demo: World) -> None:
    async def hold(busy: bool) -> tuple[str | None, int]:
        async with client_of(demo) as client:
            held = ApplyLock(LeaseStore(client), lease_seconds=3.0)
            await held.acquire(0, "abcdabcdabcdabcd" if busy else "dcbadcbadcbadcba")
            for _ in range(12):  # 3.6 s: beyond the lease's safe time
                if busy:
                    await client.get_json("portals/self")  # a request: progress
                await asyncio.sleep(0.3)
            reason = held.still_held()
            beat = (await client.get_json(f"portals/self/resources/{KEY}")).get("beat", 0)
            await held.release()
            return reason, int(beat)

    stuck_reason, stuck_beats = asyncio.run(hold(busy=False))
    assert stuck_reason is not None and "not renewed in time" in stuck_reason
    assert stuck_beats == 0  # a stuck apply never renewed: its lease runs out
    busy_reason, busy_beats = asyncio.run(hold(busy=True))
    assert busy_reason is None and busy_beats >= 2


def test_waiting_for_the_lock_says_whom_it_waits_for(demo: World) -> None:
    put_lease(demo, lease("cccc2222dddd3333"))
    applied = demo.orgctl(
        "apply", EXAMPLES / "hq", "--auto-approve", "--lock-timeout", "3s", portal="hq"
    )
    assert applied.returncode == 1, output_of(applied)
    waiting, *_, error = applied.stderr.strip().splitlines()
    assert waiting.startswith("The portal is locked: lock ID cccc2222dddd3333, held by ci@runner-7")
    assert "Waiting for it (up to 3s)" in waiting and "force-unlock cccc2222dddd3333" in waiting
    assert "after waiting 3s" in error
