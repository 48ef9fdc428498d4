"""Sign-in locks run on real time: a state whose clock stands still (a `clock` in the
state file, no control call) still unlocks once the lock's period has passed."""

from __future__ import annotations

import time

from starlette.testclient import TestClient

from orgctl_service.app import create_app
from orgctl_service.lockout import LockoutPolicy
from orgctl_service.seed import build_world
from orgctl_service.store import Store
from tests.service_unit.conftest import STATE, Api

LOCK_MS = 400


def sign_in(api: Api, password: str) -> str:
    body = api.post("generateToken", username="cy", password=password)
    return "token" if "token" in body else str(body["error"]["messageCode"])


def test_a_lock_ends_on_real_time_though_the_service_clock_stands_still() -> None:
    world = build_world(STATE)  # clock: 2026-11-01T00:00:00Z, not ticking
    store = Store(None)
    store.save_all(world)
    policy = LockoutPolicy(member_failures=2, lock_ms=LOCK_MS)
    with TestClient(create_app(store, world, lockout=policy)) as client:
        api = Api(client, "hq")
        assert [sign_in(api, "guess") for _ in range(2)] == ["GWM_0009"] * 2
        assert sign_in(api, "pw") == "GWM_0010"  # locked, even with the right password
        time.sleep(LOCK_MS / 1000 + 0.2)
        assert world.clock == build_world(STATE).clock  # the service clock did not move
        assert sign_in(api, "pw") == "token"
