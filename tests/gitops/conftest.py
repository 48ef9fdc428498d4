"""Fixtures of the CI tests: the demo service, and a fake of the hosting's API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import DEMO_STATE, World
from tests.gitops.fake_hosting import Hosting, fake_hosting
from tests.service.harness import Service


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    workdir = tmp_path / "service"
    workdir.mkdir()
    world = World(Service(workdir / "service.sqlite", DEMO_STATE).start(), workdir)
    yield world
    world.close()


@pytest.fixture
def hosting() -> Iterator[Hosting]:
    with fake_hosting() as fake:
        yield fake
