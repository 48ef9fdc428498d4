"""The apply lock (README: the apply lock): a lease kept as a portal resource. A second
apply is refused naming the holder, waits with --lock-timeout, takes over an expired or
dead holder's lease, and force-unlock breaks only the lease it names."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from orgctl_service.testing.proxy import FaultyProxy
from reconciler.apply.lock import KEY, ApplyLock, LeaseStore, LockError
from reconciler.live.client import PortalClient

from .harness import EXAMPLES, World, output_of
from .test_faults import through

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"
FAR = 4_102_444_800.0  # 2100-01-01: a lease that will not expire during a test


def lease(lock_id: str, until: float = FAR, holder: str = "ci@runner-7") -> dict[str, Any]:
    return {"id": lock_id, "holder": holder, "pid": 4242, "since": 1.0, "until": until}


def put_lease(world: World, body: dict[str, Any] | str) -> None:
    text = body if isinstance(body, str) else json.dumps(body)
    world.api("hq").post("portals/self/addResource", key=KEY, text=text, access="orgprivate")


def stored_lease(world: World) -> dict[str, Any] | None:
    api = world.api("hq")
    keys = [r["key"] for r in api.listing("portals/self/resources", "resources")]
    return api.get(f"portals/self/resources/{KEY}") if KEY in keys else None


def role_names(world: World) -> list[str]:
    api = world.api("hq")
    return [r["name"] for r in api.listing(f"portals/{api.portal_id}/roles", "roles")]


def test_a_second_apply_is_refused_while_another_holds_the_lock(demo: World) -> None:
    put_lease(demo, lease("0f1e2d3c4b5a6978"))
    before = role_names(demo)
    applied = demo.orgctl("apply", HQ, "--auto-approve", portal="hq")
    assert applied.returncode == 1, output_of(applied)
    assert "the portal is locked by another apply" in applied.stderr
    assert "ci@runner-7" in applied.stderr and "0f1e2d3c4b5a6978" in applied.stderr
    assert "orgctl force-unlock 0f1e2d3c4b5a6978" in applied.stderr
    assert role_names(demo) == before  # nothing was sent
    assert stored_lease(demo) == lease("0f1e2d3c4b5a6978")  # the holder's lease is kept


def test_an_apply_in_flight_holds_the_lock_against_another(demo: World) -> None:
    with FaultyProxy(demo.service.url, stall=("/updateInfo",)) as proxy:
        first = demo.spawn("apply", HQ, "--auto-approve", env=through(demo, proxy))
        try:
            assert proxy.stalled.wait(60), "the first apply never sent updateInfo"
            second = demo.orgctl("apply", HQ, "--auto-approve", portal="hq")
            held = stored_lease(demo)
        finally:
            first.kill()
            first.wait(30)
    assert second.returncode == 1, output_of(second)
    assert "the portal is locked by another apply" in second.stderr
    assert held is not None and held["pid"] == first.pid
    assert "calls, digest" in held["plan"]  # the lease says which plan it applies
    # The holder died; its lease names this machine and a gone process: taken over.
    rerun = demo.orgctl("apply", HQ, "--auto-approve", portal="hq")
    assert rerun.returncode == 0, output_of(rerun)
    assert role_names(demo).count("Field Analyst") == 1
    assert stored_lease(demo) is None  # released at the end


def test_lock_timeout_waits_for_the_holder_to_finish(demo: World) -> None:
    put_lease(demo, lease("aaaa0000bbbb1111"))
    api = demo.api("hq")
    freed = threading.Timer(1.0, lambda: api.post("portals/self/removeResource", key=KEY))
    freed.start()
    try:
        applied = demo.orgctl("apply", HQ, "--auto-approve", "--lock-timeout", "1m", portal="hq")
    finally:
        freed.join()
    assert applied.returncode == 0, output_of(applied)
    assert "Converged" in applied.stdout


def test_lock_timeout_gives_up_naming_the_holder(demo: World) -> None:
    put_lease(demo, lease("cccc2222dddd3333"))
    applied = demo.orgctl("apply", HQ, "--auto-approve", "--lock-timeout", "2s", portal="hq")
    assert applied.returncode == 1, output_of(applied)
    assert "after waiting 2s" in applied.stderr and "cccc2222dddd3333" in applied.stderr


def test_a_lease_unchanged_for_its_period_is_taken_over(demo: World) -> None:
    # Ended on the portal's clock, which alone proves nothing (the clock may have jumped):
    # watched for its period (3 s) by this machine's clock, unchanged, then taken.
    put_lease(demo, {**lease("eeee4444ffff5555", until=1.0), "seconds": 3})
    applied = demo.orgctl("apply", HQ, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert "Watching it for 3s before taking it over" in applied.stderr
    assert stored_lease(demo) is None


def test_an_unreadable_lease_holds_until_broken(demo: World) -> None:
    put_lease(demo, {"note": "not a lease"})
    applied = demo.orgctl("apply", HQ, "--auto-approve", portal="hq")
    assert applied.returncode == 1 and "force-unlock unreadable" in applied.stderr
    broken = demo.orgctl("force-unlock", "unreadable", HQ, "--force", portal="hq")
    assert broken.returncode == 0, output_of(broken)
    assert stored_lease(demo) is None


def test_force_unlock_breaks_only_the_named_lease(demo: World) -> None:
    put_lease(demo, lease("1111222233334444"))
    wrong = demo.orgctl("force-unlock", "9999888877776666", HQ, "--force", portal="hq")
    assert wrong.returncode == 1
    assert "held under another ID" in wrong.stderr and "1111222233334444" in wrong.stderr
    unasked = demo.orgctl("force-unlock", "1111222233334444", HQ, portal="hq")
    assert unasked.returncode == 1 and "pass --force" in unasked.stderr
    assert stored_lease(demo) is not None
    broken = demo.orgctl("force-unlock", "1111222233334444", HQ, "--force", portal="hq")
    assert broken.returncode == 0, output_of(broken)
    assert "ci@runner-7" in broken.stdout
    assert stored_lease(demo) is None
    nothing = demo.orgctl("force-unlock", "1111222233334444", HQ, "--force", portal="hq")
    assert nothing.returncode == 1 and "not locked" in nothing.stderr


def test_no_lock_and_dry_run_leave_the_lock_alone(demo: World) -> None:
    put_lease(demo, lease("5555666677778888"))
    dry = demo.orgctl("apply", HQ, "--dry-run", portal="hq")
    assert dry.returncode == 0, output_of(dry)
    unlocked = demo.orgctl("apply", HQ, "--auto-approve", "--no-lock", portal="hq")
    assert unlocked.returncode == 0, output_of(unlocked)
    assert stored_lease(demo) == lease("5555666677778888")


def client_of(world: World) -> PortalClient:
    env = world.env("hq")
    return PortalClient(env["ORGCTL_PORTAL_URL"], env=env)


def test_of_two_simultaneous_takers_exactly_one_holds_the_lock(demo: World) -> None:
    async def race() -> list[Any]:
        async with client_of(demo) as one, client_of(demo) as two:
            locks = [ApplyLock(LeaseStore(one)), ApplyLock(LeaseStore(two))]
            taken = await asyncio.gather(
                locks[0].acquire(0, "aaaaaaaaaaaaaaaa"),
                locks[1].acquire(0, "bbbbbbbbbbbbbbbb"),
                return_exceptions=True,
            )
            for held in locks:
                await held.release()
            return taken

    for _ in range(5):
        taken = asyncio.run(race())
        won = [t for t in taken if not isinstance(t, BaseException)]
        lost = [t for t in taken if isinstance(t, LockError)]
        assert len(won) == 1 and len(lost) == 1, taken
        assert won[0].id in str(lost[0])  # the loser names the winner
        assert stored_lease(demo) is None


def test_a_lease_taken_over_stops_the_holder_from_sending(demo: World) -> None:
    async def hold_then_lose() -> str | None:
        async with client_of(demo) as client:
            held = ApplyLock(LeaseStore(client))
            await held.acquire(0, "abcdabcdabcdabcd")
            assert held.still_held() is None
            await asyncio.to_thread(put_lease, demo, lease("feedfeedfeedfeed"))
            await held._renew()  # what the renewal task does every third of the lease
            reason = held.still_held()
            await held.release()
            return reason

    reason = asyncio.run(hold_then_lose())
    assert reason is not None and "taken from this run" in reason and "feedfeedfeedfeed" in reason
    assert stored_lease(demo) == lease("feedfeedfeedfeed")  # the new holder's lease is kept
