"""A fresh `orgctl serve` with the demo state per test, as the end-to-end tests start it
(tests change the portal)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from orgctl_service.testing.service import ADMIN, Service
from reconciler.api import Connection, Credentials

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DEMO_STATE = EXAMPLES / "demo" / "state.yaml"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    running = Service(tmp_path / "service.sqlite", DEMO_STATE).start()
    yield running
    running.stop()


@pytest.fixture
def hq(service: Service) -> Connection:
    """The demo's hq portal, as its administrator: URLs and credentials as arguments."""
    return Connection.of(
        Credentials(username=ADMIN[0], password=ADMIN[1]),
        portal_url=f"{service.url}/hq/sharing/rest",
        admin_url=f"{service.url}/hq/admin",
    )
