"""The vendor's Python client (`arcgis`, the `compat` extra) against `orgctl serve` over
https on a free loopback port, signed in as an administrator's script would."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from orgctl_service.tls import make_local_certificate
from tests.service.harness import Service

STATE = Path(__file__).resolve().parent / "state.yaml"
# The demo world as shipped: its clock stands at a fixed date, unlike STATE's wall time.
DEMO_STATE = Path(__file__).resolve().parents[2] / "examples" / "demo" / "state.yaml"
PASSWORDS = {
    u: f"{u}-pass" for u in ("admin", "alice", "bob", "carol", "dave", "erin", "frank", "gina")
}


@dataclass(frozen=True)
class Portals:
    """One running service: its https address and the CA file that signed it."""

    url: str
    ca: Path

    def portal_url(self, key: str) -> str:
        return f"{self.url}/{key}"


def _served(tmp_path: Path, state: Path) -> Iterator[Portals]:
    files = make_local_certificate(tmp_path)
    options = ("--cert", str(files.cert), "--key", str(files.key))
    service = Service(tmp_path / "compat.sqlite", state, options=options).start()
    try:
        assert files.ca is not None
        yield Portals(service.url, files.ca)
    finally:
        service.stop()


@pytest.fixture
def portals(tmp_path: Path) -> Iterator[Portals]:
    yield from _served(tmp_path, STATE)


@pytest.fixture
def demo_portals(tmp_path: Path) -> Iterator[Portals]:
    yield from _served(tmp_path, DEMO_STATE)


SignIn = Callable[..., Any]


@pytest.fixture
def sign_in(portals: Portals) -> SignIn:
    """`GIS` for a user of a portal; keyword arguments go to `GIS` (e.g. use_gen_token)."""
    return _opener(portals)


@pytest.fixture
def demo_sign_in(demo_portals: Portals) -> SignIn:
    """As `sign_in`, on the shipped demo world (examples/demo/state.yaml)."""
    return _opener(demo_portals)


def _opener(portals: Portals) -> SignIn:

    def open_gis(
        key: str = "hq", username: str = "admin", password: str | None = None, **options: Any
    ) -> Any:
        from arcgis.gis import GIS

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return GIS(
                portals.portal_url(key),
                username,
                password or PASSWORDS[username],
                ca_bundles=str(portals.ca),
                **options,
            )

    return open_gis
