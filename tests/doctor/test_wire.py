"""The rules of `reconciler.doctor.wire` cover every key orgctl's readers take: a whole
read of each portal of the demo's `orgctl serve` (export's read: every listing,
workspace, schedule, invitation and webhook) leaves no key unchecked and no difference.
A reader that starts taking a new key fails here until the key has its rule."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from orgctl_service.testing.service import ADMIN, Service
from reconciler.doctor.findings import Severity
from reconciler.doctor.recording import Observations, RecordingClient
from reconciler.doctor.wire import wire_findings
from reconciler.live.reader import Scope, read_live
from reconciler.state import Auth

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo" / "state.yaml"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    service = Service(tmp_path_factory.mktemp("demo") / "db.sqlite", DEMO).start()
    yield service
    service.stop()


async def _observed(service: Service, portal: str) -> Observations:
    env = {"DOCTOR_USER": ADMIN[0], "DOCTOR_PASSWORD": ADMIN[1]}
    client = RecordingClient(
        f"{service.url}/{portal}/sharing/rest",
        admin_root=f"{service.url}/{portal}/admin",
        auth=Auth(usernameEnv="DOCTOR_USER", passwordEnv="DOCTOR_PASSWORD"),
        env=env,
    )
    async with client:
        await read_live(client, None, Scope.EVERYTHING)
    return client.observations


@pytest.mark.parametrize("portal", ["hq", "field", "cloud"])
def test_every_key_the_readers_take_has_its_rule(demo: Service, portal: str) -> None:
    seen = asyncio.run(_observed(demo, portal))
    assert len(seen.keys) > 20  # the readers were observed
    found = [f.message for f in wire_findings(seen) if f.severity is not Severity.OK]
    assert found == []
