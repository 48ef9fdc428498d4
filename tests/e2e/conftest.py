"""Fixtures of the end-to-end tests: a fresh `orgctl serve` per test (tests change state)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.harness import Service

from .harness import DEMO_STATE, STATES, Serve, World


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    """Start a service seeded from a state file (a path, or a name in `states/`)."""
    worlds: list[World] = []

    def start(state: str | Path) -> World:
        path = state if isinstance(state, Path) else STATES / f"{state}.yaml"
        workdir = tmp_path / f"run{len(worlds)}"
        workdir.mkdir()
        world = World(Service(workdir / "service.sqlite", path).start(), workdir)
        worlds.append(world)
        return world

    yield start
    for world in worlds:
        world.close()


@pytest.fixture
def demo(serve: Serve) -> World:
    """The demo world that the example manifests are written against."""
    return serve(DEMO_STATE)
