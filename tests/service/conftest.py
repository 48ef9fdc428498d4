"""Fixtures that run the reference service as a subprocess on a free loopback port.

A module-scoped service serves the read-only tests (reads and refused writes leave the
state unchanged); tests that change state get their own service.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.service.harness import Api, Service, write_state

Serve = Callable[[str | dict[str, Any]], Api]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    """Start a fresh service seeded from a state; stopped at teardown."""
    started: list[tuple[Service, Api]] = []

    def start(state: str | dict[str, Any]) -> Api:
        directory = tmp_path / f"service{len(started)}"
        directory.mkdir()
        service = Service(directory / "state.sqlite", write_state(state, directory)).start()
        api = service.api()
        started.append((service, api))
        return api

    yield start
    for service, api in started:
        api.close()
        service.stop()
        assert "Traceback" not in service.output, service.output


def _module_service(state: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    directory = tmp_path_factory.mktemp(state)
    service = Service(directory / "state.sqlite", write_state(state, directory)).start()
    api = service.api()
    yield api
    api.close()
    service.stop()
    # A handled error never reaches the log as a traceback, and no token is ever logged.
    assert "Traceback" not in service.output, service.output
    assert all(token not in service.output for token in api.issued_tokens()), "token logged"


@pytest.fixture(scope="module")
def world_ro(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """The world state, shared by a module's tests: never change it."""
    yield from _module_service("world", tmp_path_factory)


@pytest.fixture(scope="module")
def versions_ro(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """Portals at many releases, shared by a module's tests: never change it."""
    yield from _module_service("versions", tmp_path_factory)


@pytest.fixture
def world(serve: Serve) -> Api:
    """The world state in a service of the test's own."""
    return serve("world")
