"""The service as a careful server: what a client cut off mid-request, a reader of the
database file and a password guesser can get from it."""

from __future__ import annotations

import contextlib
import hashlib
import json
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.service.harness import Api, Service, error_of, write_state
from tests.service.world import FIELD, HQ


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
    # While serving the -wal file holds the latest writes; a stopped service (SIGTERM now
    # closes the database) has folded it into the database file.
    contents = [f.read_bytes() for f in database_files(db)]
    service.stop()
    contents += [f.read_bytes() for f in database_files(db)]
    assert all(token.encode() not in content for content in contents)
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


def stored_password_hashes(db: Path) -> dict[str, str]:
    """Each member's stored hash, by `<portal id>:<username>`."""
    with contextlib.closing(sqlite3.connect(db)) as connection:
        rows = connection.execute("SELECT key, body FROM docs WHERE key LIKE 'user:%'")
        return {key[5:]: json.loads(body)["passwordHash"] for key, body in rows}


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_passwords_are_stored_salted_with_their_scrypt_cost(tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite"
    service = Service(db, write_state("world", tmp_path)).start()
    signed_in_token(service)  # admin of hq signs in: the seeded hash is raised
    service.stop()
    hashes = stored_password_hashes(db)
    assert all(h.startswith("scrypt$") for h in hashes.values()), hashes
    assert sha256_hex("admin-pass") not in hashes.values()
    signed_in = hashes.pop(f"{HQ}:admin")
    assert signed_in.startswith("scrypt$16384$8$1$")  # the sign-in cost, stored beside it
    assert all(h.startswith("scrypt$1024$8$1$") for h in hashes.values())  # as seeded
    assert signed_in.split("$")[4] not in {h.split("$")[4] for h in hashes.values()}  # own salt


def test_a_database_with_unsalted_hashes_still_signs_in_and_is_rehashed(tmp_path: Path) -> None:
    db, state = tmp_path / "state.sqlite", write_state("world", tmp_path)
    Service(db, state).start().stop()
    with contextlib.closing(sqlite3.connect(db)) as connection:  # as an older service wrote it
        for user in ("admin", "alice"):
            key = f"user:{HQ}:{user}"
            (body,) = connection.execute("SELECT body FROM docs WHERE key = ?", (key,)).fetchone()
            doc = {**json.loads(body), "passwordHash": sha256_hex(f"{user}-pass")}
            connection.execute("UPDATE docs SET body = ? WHERE key = ?", (json.dumps(doc), key))
        connection.commit()
    service = Service(db, state).start()
    api = Api(service.url)
    try:
        assert "token" in api.generate_token("hq", "admin", "admin-pass")
        error_of(api.generate_token("hq", "alice", "alice-pas"), 400, "GWM_0009")
    finally:
        api.close()
        service.stop()
    hashes = stored_password_hashes(db)
    assert hashes[f"{HQ}:admin"].startswith("scrypt$16384$")
    assert hashes[f"{HQ}:alice"] == sha256_hex("alice-pass")  # rehashed only by a sign-in


def sign_in_codes(api: Api, user: str, password: str, times: int) -> list[str]:
    answers = [api.generate_token("hq", user, password) for _ in range(times)]
    return [a["error"]["messageCode"] if "error" in a else "token" for a in answers]


def test_five_wrong_passwords_lock_the_member_for_15_minutes(world: Api) -> None:
    codes = sign_in_codes(world, "alice", "guess", 50)
    # Five guesses are checked; the other 45 are refused without looking at the password.
    assert codes == ["GWM_0009"] * 5 + ["GWM_0010"] * 45
    locked = world.generate_token("hq", "alice", "alice-pass")  # even the right one
    assert "Too many invalid sign-in attempts" in error_of(locked, 400, "GWM_0010")["details"][0]
    assert "token" in world.generate_token("hq", "admin", "admin-pass")  # others sign in
    world.advance(14 / 60)
    assert sign_in_codes(world, "alice", "alice-pass", 1) == ["GWM_0010"]
    world.advance(1.5 / 60)
    assert sign_in_codes(world, "alice", "alice-pass", 1) == ["token"]


def test_only_consecutive_failures_count(world: Api) -> None:
    assert sign_in_codes(world, "alice", "guess", 4) == ["GWM_0009"] * 4
    assert sign_in_codes(world, "alice", "alice-pass", 1) == ["token"]  # clears the count
    assert sign_in_codes(world, "alice", "guess", 4) == ["GWM_0009"] * 4
    world.advance(16 / 60)  # failures 15 minutes apart are not consecutive either
    assert sign_in_codes(world, "alice", "guess", 4) == ["GWM_0009"] * 4
    assert sign_in_codes(world, "alice", "alice-pass", 1) == ["token"]


def test_an_address_guessing_across_many_names_is_locked(world: Api) -> None:
    names = [f"user{n}" for n in range(25)]
    codes = [sign_in_codes(world, name, "guess", 1)[0] for name in names]
    assert codes == ["GWM_0009"] * 20 + ["GWM_0010"] * 5
    assert sign_in_codes(world, "admin", "admin-pass", 1) == ["GWM_0010"]
    world.advance(16 / 60)
    assert sign_in_codes(world, "admin", "admin-pass", 1) == ["token"]


CONTROLS = {
    "NUL": "\x00",
    "LF": "\n",
    "CR": "\r",
    "TAB": "\t",
    "ESC": "\x1b[31m",
    "DEL": "\x7f",
    "C1-NEL": "\x85",
    "RLO": "\u202e",
    "LRI": "\u2066",
    "PDI": "\u2069",
}
WS = "collaborations/c1/workspaces/ws1"


@pytest.mark.parametrize("char", list(CONTROLS.values()), ids=list(CONTROLS))
def test_control_and_bidi_characters_are_refused_in_names(world_ro: Api, char: str) -> None:
    name = f"Ana{char}lyst 2"
    error_of(world_ro.post("hq", f"portals/{HQ}/createRole", name=name), 400, "ROLE_1001")
    error_of(world_ro.post("hq", f"portals/{HQ}/{WS}/updateInfo", name=name), 400, "COLL_1001")
    link = f"portals/{FIELD}/{WS}/updatePortalGroupLink"
    group = world_ro.post("field", link, portalGroupId=name)
    error_of(group, 400, "GWM_0001")
    resource = world_ro.post("hq", f"portals/{HQ}/addResource", key=f"a{char}.json", text="{}")
    error_of(resource, 400, "GWM_0001")
    role = world_ro.get("hq", f"portals/{HQ}/roles", num=100)["roles"]
    assert all(char not in r["name"] for r in role)


@pytest.mark.parametrize("name", ["NUL", "ESC", "DEL", "C1-NEL", "RLO", "LRI"])
def test_control_and_bidi_characters_are_refused_in_descriptions(world_ro: Api, name: str) -> None:
    text = f"Reads {CONTROLS[name]}content"
    body = world_ro.post("hq", f"portals/{HQ}/createRole", name="Described", description=text)
    error_of(body, 400, "ROLE_1002")
    body = world_ro.post("hq", f"portals/{HQ}/{WS}/updateInfo", description=text)
    error_of(body, 400, "COLL_1001")


def test_descriptions_may_span_lines(world: Api) -> None:
    text = "Reads content.\r\nCreates items:\tmaps, layers."
    created = world.post("hq", f"portals/{HQ}/createRole", name="Multi", description=text)
    assert created.get("success"), created
    role = world.get("hq", f"portals/{HQ}/roles/{created['id']}")
    assert role["description"] == text


@pytest.mark.parametrize(
    "form",
    [
        {"interval": str(10**30)},
        {"interval": "1e30"},
        {"interval": "8761"},
        {"interval": "1_000"},
        {"interval": "\u0663"},  # an Arabic-Indic three
        {"interval": "0"},
        {"repeatCount": str(2**31)},
        {"repeatCount": "-2"},
        {"startTime": "300000000000000"},
        {"startTime": "-1"},
    ],
    ids=lambda form: "=".join(next(iter(form.items()))).encode("unicode_escape").decode(),
)
def test_schedule_numbers_out_of_range_are_refused(world_ro: Api, form: dict[str, str]) -> None:
    body = world_ro.post("field", f"portals/{FIELD}/{WS}/schedule/update", **form)
    assert error_of(body, 400)["messageCode"] in ("COLL_1002", "GWM_0001")


def test_the_largest_schedule_numbers_are_taken(world: Api) -> None:
    form = {"interval": "8760", "repeatCount": str(2**31 - 1), "startTime": "253402300799999"}
    body = world.post("field", f"portals/{FIELD}/{WS}/schedule/update", **form)
    assert body.get("success"), body


@pytest.mark.parametrize("value", ["1e30", "1048577", "nan", "inf", "-1", "1_0", "0x10"])
def test_workspace_sizes_out_of_range_are_refused(world_ro: Api, value: str) -> None:
    body = world_ro.post("hq", f"portals/{HQ}/{WS}/updateInfo", maxItemSizeInMB=value)
    assert error_of(body, 400)["messageCode"] in ("COLL_1001", "GWM_0001")


@pytest.mark.parametrize(
    ("name", "value"),
    [("numberOfFailures", "0"), ("daysInPast", "31"), ("notificationAttempts", str(10**30))],
)
def test_webhook_policy_numbers_out_of_range_are_refused(
    world_ro: Api, name: str, value: str
) -> None:
    body = world_ro.admin_post("field", "services/webhooks/settings", **{name: value})
    assert body.get("status") == "error" and body.get("code") == 400, body


def test_the_oauth_sign_in_page_locks_as_generate_token_does(world: Api) -> None:
    params = {
        "client_id": "pythonapi",
        "response_type": "code",
        "redirect_uri": "urn:ietf:wg:oauth:2.0:oob",
        "f": "json",
    }
    page = world.http.get(f"{world.url}/hq/sharing/rest/oauth2/authorize", params=params).text
    oauth_state = page.split('"oauth_state":"', 1)[1].split('"', 1)[0]

    def sign_in(password: str) -> httpx.Response:
        form = {"oauth_state": oauth_state, "username": "alice", "password": password}
        url = f"{world.url}/hq/sharing/oauth2/signin"
        return world.http.post(url, data=form, follow_redirects=False)

    for _ in range(5):
        assert "Invalid username or password." in sign_in("guess").text
    locked = sign_in("alice-pass")
    assert locked.status_code == 200 and "Too many invalid sign-in attempts" in locked.text
    # The page and generateToken share the count: the name is locked for both.
    assert sign_in_codes(world, "alice", "alice-pass", 1) == ["GWM_0010"]
