"""SQLite persistence: one JSON document per portal and per collaboration, the clock, and
the tokens. WAL with synchronous=FULL, so a write answered with success survives a crash.

Every write runs inside `BEGIN IMMEDIATE` and the service serializes requests with a
lock, so parallel writers never lose an update.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from reconciler.service.world import Doc, World

_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (key TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY, portal_id TEXT NOT NULL, username TEXT NOT NULL,
    expires INTEGER NOT NULL
);
"""


class Store:
    def __init__(self, path: str | None) -> None:
        self.connection = sqlite3.connect(
            path or ":memory:", check_same_thread=False, isolation_level=None
        )
        if path:
            self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=FULL")
        self.connection.executescript(_SCHEMA)

    def is_empty(self) -> bool:
        row = self.connection.execute("SELECT COUNT(*) FROM docs").fetchone()
        return int(row[0]) == 0

    def load(self) -> World:
        world = World(clock=0)
        for key, body in self.connection.execute("SELECT key, body FROM docs"):
            doc = json.loads(body)
            kind, _, ident = key.partition(":")
            if kind == "meta":
                world.clock = int(doc["clock"])
            elif kind == "portal":
                world.portals[ident] = doc
            elif kind == "collab":
                world.collaborations[ident] = doc
        for token, portal_id, username, expires in self.connection.execute(
            "SELECT token, portal_id, username, expires FROM tokens"
        ):
            world.tokens[token] = {"portalId": portal_id, "username": username, "expires": expires}
        return world

    def save(
        self,
        world: World,
        portal_ids: Iterable[str] = (),
        collaborations: bool = False,
        tokens: Iterable[str] = (),
    ) -> None:
        """Write the clock, the named portals, every collaboration if asked, new tokens."""
        rows: list[tuple[str, str]] = [("meta", json.dumps({"clock": world.clock}))]
        for portal_id in portal_ids:
            rows.append((f"portal:{portal_id}", json.dumps(world.portals[portal_id])))
        if collaborations:
            rows += [(f"collab:{cid}", json.dumps(c)) for cid, c in world.collaborations.items()]
        cursor = self.connection.cursor()
        cursor.execute("BEGIN IMMEDIATE")
        try:
            cursor.executemany("INSERT OR REPLACE INTO docs (key, body) VALUES (?, ?)", rows)
            if collaborations:
                keys = [f"collab:{cid}" for cid in world.collaborations]
                marks = ",".join("?" * len(keys)) or "''"
                cursor.execute(
                    f"DELETE FROM docs WHERE key LIKE 'collab:%' AND key NOT IN ({marks})", keys
                )
            for token in tokens:
                entry: Doc = world.tokens[token]
                cursor.execute(
                    "INSERT OR REPLACE INTO tokens VALUES (?, ?, ?, ?)",
                    (token, entry["portalId"], entry["username"], entry["expires"]),
                )
            cursor.execute("COMMIT")
        except BaseException:
            cursor.execute("ROLLBACK")
            raise

    def save_all(self, world: World) -> None:
        self.save(world, list(world.portals), collaborations=True, tokens=list(world.tokens))

    def close(self) -> None:
        self.connection.close()
