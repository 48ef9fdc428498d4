"""SQLite persistence: JSON documents for each portal (its settings, webhooks and tasks),
each of its members and roles, each collaboration, the clock; and the tokens. Members and
roles are rows of their own so a write on a large portal stores only what it changed.
WAL with synchronous=FULL, so a write answered with success survives a crash.

Every write runs inside `BEGIN IMMEDIATE` and the service serializes requests with a
lock, so parallel writers never lose an update.

The file holds password hashes and token digests, so it is created readable by its owner
only (0600), and SQLite gives its -wal and -shm files the database file's mode. Tokens
are stored as the SHA-256 of the token (`auth.token_key`), never as issued.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable
from typing import NoReturn

from orgctl_service.world import Doc, World

_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (key TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY, portal_id TEXT NOT NULL, username TEXT NOT NULL,
    expires INTEGER NOT NULL, bound_to TEXT NOT NULL DEFAULT ''
);
"""


# PRAGMA user_version: 1 once the tokens table holds digests (older files held tokens).
TOKENS_HASHED = 1
DB_MODE = 0o600

_PARTS = {"user": "users", "role": "roles"}  # row kind -> the portal's collection

Part = tuple[str, str, str]  # (kind "user" | "role", portal id, username or role id)

DISK_FULL = "database or disk is full"


class StoreFull(Exception):
    """A write refused for want of room (SQLITE_FULL): nothing of it was stored."""


class Store:
    def __init__(self, path: str | None) -> None:
        if path:
            _owner_only(path)
        self.connection = sqlite3.connect(
            path or ":memory:", check_same_thread=False, isolation_level=None
        )
        if path:
            self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=FULL")
        self.connection.executescript(_SCHEMA)
        columns = {row[1] for row in self.connection.execute("PRAGMA table_info(tokens)")}
        if "bound_to" not in columns:  # a database written before tokens were bound
            self.connection.execute(
                "ALTER TABLE tokens ADD COLUMN bound_to TEXT NOT NULL DEFAULT ''"
            )
        self._hash_stored_tokens()

    def _hash_stored_tokens(self) -> None:
        """A database written before tokens were hashed holds them as issued: keep them
        valid, but as digests."""
        version = int(self.connection.execute("PRAGMA user_version").fetchone()[0])
        if version >= TOKENS_HASHED:
            return
        cursor = self.connection.cursor()
        cursor.execute("BEGIN IMMEDIATE")
        try:
            for (token,) in cursor.execute("SELECT token FROM tokens").fetchall():
                digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
                cursor.execute("UPDATE tokens SET token = ? WHERE token = ?", (digest, token))
            cursor.execute(f"PRAGMA user_version = {TOKENS_HASHED}")
            cursor.execute("COMMIT")
        except BaseException as failure:
            self._undo(failure)

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
                world.portals.setdefault(ident, {"users": {}, "roles": {}}).update(doc)
            elif kind == "collab":
                world.collaborations[ident] = doc
            elif kind in _PARTS:
                portal_id, _, name = ident.partition(":")
                portal = world.portals.setdefault(portal_id, {"users": {}, "roles": {}})
                portal[_PARTS[kind]][name] = doc
        for key, portal_id, username, expires, bound_to in self.connection.execute(
            "SELECT token, portal_id, username, expires, bound_to FROM tokens"
        ):
            world.tokens[key] = {
                "portalId": portal_id,
                "username": username,
                "expires": expires,
                "boundTo": bound_to,
            }
        return world

    def save(
        self,
        world: World,
        portal_ids: Iterable[str] = (),
        collaborations: bool = False,
        tokens: Iterable[str] = (),
        parts: Iterable[Part] = (),
    ) -> None:
        """Write the clock, the named portals' own fields, the named members and roles
        (deleting those gone), every collaboration if asked, and new tokens (by their
        keys in `world.tokens`, which are digests)."""
        rows: list[tuple[str, str]] = [("meta", json.dumps({"clock": world.clock}))]
        gone: list[str] = []
        for portal_id in portal_ids:
            portal = world.portals[portal_id]
            own = {k: v for k, v in portal.items() if k not in _PARTS.values()}
            rows.append((f"portal:{portal_id}", json.dumps(own)))
        for kind, portal_id, name in parts:
            doc = world.portals[portal_id][_PARTS[kind]].get(name)
            key = f"{kind}:{portal_id}:{name}"
            if doc is None:
                gone.append(key)
            else:
                rows.append((key, json.dumps(doc)))
        if collaborations:
            rows += [(f"collab:{cid}", json.dumps(c)) for cid, c in world.collaborations.items()]
        cursor = self.connection.cursor()
        cursor.execute("BEGIN IMMEDIATE")
        try:
            cursor.executemany("INSERT OR REPLACE INTO docs (key, body) VALUES (?, ?)", rows)
            cursor.executemany("DELETE FROM docs WHERE key = ?", [(key,) for key in gone])
            if collaborations:
                keys = [f"collab:{cid}" for cid in world.collaborations]
                marks = ",".join("?" * len(keys)) or "''"
                cursor.execute(
                    f"DELETE FROM docs WHERE key LIKE 'collab:%' AND key NOT IN ({marks})", keys
                )
            for key in tokens:
                entry: Doc = world.tokens[key]
                cursor.execute(
                    "INSERT OR REPLACE INTO tokens VALUES (?, ?, ?, ?, ?)",
                    (
                        key,
                        entry["portalId"],
                        entry["username"],
                        entry["expires"],
                        entry.get("boundTo", ""),
                    ),
                )
            cursor.execute("COMMIT")
        except BaseException as failure:
            self._undo(failure)

    def _undo(self, failure: BaseException) -> NoReturn:
        """Roll back a failed write and raise its cause. SQLite has already rolled back
        after some errors, a full disk among them: a second ROLLBACK would fail and hide
        the cause ("cannot rollback - no transaction is active")."""
        if self.connection.in_transaction:
            self.connection.execute("ROLLBACK")
        if isinstance(failure, sqlite3.Error) and _is_full(failure):
            raise StoreFull(DISK_FULL) from failure
        raise failure

    def save_all(self, world: World) -> None:
        parts = [
            (kind, portal_id, name)
            for portal_id, portal in world.portals.items()
            for kind, collection in _PARTS.items()
            for name in portal[collection]
        ]
        self.save(world, list(world.portals), True, list(world.tokens), parts)

    def close(self) -> None:
        self.connection.close()


def _is_full(error: sqlite3.Error) -> bool:
    return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL


def _owner_only(path: str) -> None:
    """Create the database file 0600 before SQLite opens it (SQLite would create it with
    the umask's mode, usually world-readable), and tighten a file made before this."""
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, DB_MODE)
    os.close(descriptor)
    for name in (path, f"{path}-wal", f"{path}-shm"):
        if os.path.exists(name) and os.stat(name).st_mode & 0o077:
            os.chmod(name, DB_MODE)
