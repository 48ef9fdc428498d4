"""A full disk refuses the write whole: the client gets the error envelope naming it,
the log one line naming it, and nothing of the write is kept, in memory or on disk.
The disk is "full" through SQLite's `max_page_count` on the test's own database."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from orgctl_service.app import create_app
from orgctl_service.seed import build_world
from orgctl_service.store import Store

from .conftest import STATE, Api

MOST_ROLES_TRIED = 500


def test_a_full_disk_refuses_the_write_and_keeps_nothing_of_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "portal.sqlite"
    store = Store(str(db))
    store.save_all(build_world(STATE))
    world = store.load()
    with TestClient(create_app(store, world)) as client:
        hq = Api(client, "hq").login("admin")
        pages = store.connection.execute("PRAGMA page_count").fetchone()[0]
        store.connection.execute(f"PRAGMA max_page_count = {pages}")
        created: list[str] = []
        for number in range(MOST_ROLES_TRIED):  # until the pages left are used up
            reply = hq.post("portals/self/createRole", name=f"Role {number}", description="d" * 250)
            if "error" in reply:
                break
            created.append(f"Role {number}")
        refused = f"Role {len(created)}"
        assert reply["error"]["code"] == 500, reply
        assert "database or disk is full" in reply["error"]["message"]
        store.connection.execute(f"PRAGMA max_page_count = {pages * 100}")
        listed = {r["name"] for r in hq.get("portals/self/roles", num=100)["roles"]}
        assert refused not in listed and set(created) <= listed
    store.close()
    stored = Store(str(db)).load()
    names = {
        role["name"] for portal in stored.portals.values() for role in portal["roles"].values()
    }
    assert refused not in names and set(created) <= names
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and "database or disk is full" in lines[0].getMessage()
    assert lines[0].exc_info is None  # a line, not a traceback
