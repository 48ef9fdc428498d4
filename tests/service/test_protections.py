"""The service as a careful server: what a client cut off mid-request, a reader of the
database file and a password guesser can get from it."""

from __future__ import annotations

import contextlib
import hashlib
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.harness import Api, Service, write_state


@pytest.fixture
def started(tmp_path: Path) -> Iterator[Service]:
    """A service of the test's own, for tests that read its log or its files."""
    service = Service(tmp_path / "state.sqlite", write_state("world", tmp_path)).start()
    yield service
    service.stop()


def raw_request(service: Service, data: bytes, half_close: bool) -> bytes:
    host, port = service.url.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(data)
        if not half_close:
            return b""
        conn.shutdown(socket.SHUT_WR)
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
        return reply


@pytest.mark.parametrize("half_close", [True, False], ids=["half-closed", "closed"])
def test_a_body_shorter_than_its_content_length_logs_no_traceback(
    started: Service, half_close: bool
) -> None:
    head = (
        b"POST /hq/sharing/rest/generateToken HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n"
    )
    reply = raw_request(started, head + b"username=admin&pass", half_close)
    # Either a refusal or a closed connection: never a success, never a 500.
    assert reply == b"" or b'"code":400' in reply or b" 400 " in reply.split(b"\r\n")[0], reply
    time.sleep(0.3)  # the service logs, if at all, after the socket closes
    api = Api(started.url)
    try:
        assert "token" in api.generate_token("hq", "admin", "admin-pass")  # still serving
    finally:
        api.close()
    assert "Traceback" not in started.output, started.output


def signed_in_token(service: Service, user: str = "admin") -> str:
    api = Api(service.url)
    try:
        return str(api.generate_token("hq", user, f"{user}-pass")["token"])
    finally:
        api.close()


def database_files(db: Path) -> list[Path]:
    return [p for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()]


def test_the_database_and_its_wal_files_are_readable_by_the_owner_only(
    started: Service,
) -> None:
    signed_in_token(started)
    files = database_files(started.db)
    assert len(files) == 3, files  # WAL mode: the -wal and -shm files exist while serving
    assert {oct(f.stat().st_mode & 0o777) for f in files} == {oct(0o600)}


def test_a_world_readable_database_is_tightened_when_opened(tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite"
    first = Service(db, write_state("world", tmp_path)).start()
    first.stop()
    db.chmod(0o644)
    again = Service(db).start()
    try:
        assert oct(db.stat().st_mode & 0o777) == oct(0o600)
    finally:
        again.stop()


def stored_tokens(db: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(db)) as connection:
        return [row[0] for row in connection.execute("SELECT token FROM tokens")]


def test_tokens_are_stored_only_as_digests(tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite"
    service = Service(db, write_state("world", tmp_path)).start()
    token = signed_in_token(service)
    files = database_files(db)
    service.stop()
    assert all(token.encode() not in f.read_bytes() for f in files)
    assert stored_tokens(db) == [hashlib.sha256(token.encode()).hexdigest()]


def test_tokens_of_a_database_that_stored_them_as_issued_stay_valid(tmp_path: Path) -> None:
    db, state = tmp_path / "state.sqlite", write_state("world", tmp_path)
    service = Service(db, state).start()
    token = signed_in_token(service)
    service.stop()
    with contextlib.closing(sqlite3.connect(db)) as connection:  # as an older service wrote it
        connection.execute("UPDATE tokens SET token = ?", (token,))
        connection.execute("PRAGMA user_version = 0")
        connection.commit()
    again = Service(db, state).start()  # the state's clock; the database is not reseeded
    api = Api(again.url)
    try:
        body = api.get("hq", "portals/self", auth=token)
        assert body.get("urlKey") == "hq", body
    finally:
        api.close()
        again.stop()
    assert stored_tokens(db) == [hashlib.sha256(token.encode()).hexdigest()]
