"""Open the database and, when it is empty, seed it from the state file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from orgctl_service.seed import load_state_file
from orgctl_service.store import Store
from orgctl_service.world import World
from reconciler.errors import UserError


def open_world(state_file: Path | None, db_file: Path | None) -> tuple[Store, World]:
    try:
        store = Store(str(db_file) if db_file else None)
        if not store.is_empty():
            return store, store.load()
    except (sqlite3.Error, OSError, ValueError, KeyError) as exc:
        raise UserError(f"{db_file}: cannot open the database: {exc}") from None
    world = load_state_file(state_file) if state_file else World(clock=0)
    if state_file is None:
        from orgctl_service.clock import now_real_ms

        world.clock = now_real_ms()
    store.save_all(world)
    return store, world
