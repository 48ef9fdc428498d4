"""The SQLite store keeps what a write answered, across a reopen."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from orgctl_service.app import create_app
from orgctl_service.auth import token_key
from orgctl_service.boot import open_world
from reconciler.catalog import PREBUILT_ROLES
from tests.service_unit.conftest import Api


def test_round_trip_through_a_database_file(tmp_path: Path) -> None:
    state = tmp_path / "state.yaml"
    state.write_text(
        "clock: 2026-11-01T00:00:00Z\nportals:\n"
        "  - {id: p1, urlKey: hq, name: HQ, deployment: hosted-cloud, version: '2026-06',\n"
        "     users: [{username: admin, password: pw, role: org_admin, defaultAdmin: true},\n"
        "             {username: gus, password: pw, role: org_user}]}\n"
    )
    db = tmp_path / "svc.sqlite"
    store, world = open_world(state, db)
    with TestClient(create_app(store, world)) as client:
        api = Api(client, "hq").login("admin")
        role_id = api.post("portals/self/createRole", name="Kept")["id"]
        gone_id = api.post("portals/self/createRole", name="Gone")["id"]
        assert api.post(f"portals/self/roles/{gone_id}/delete")["success"]
        assert api.post("portals/self/updateuserrole", user="gus", role=role_id)["success"]
    store.close()

    store, world = open_world(None, db)  # no state: the database alone
    with TestClient(create_app(store, world)) as client:
        again = Api(client, "hq")
        again.token = api.token  # tokens survive too
        roles = again.get("portals/self/roles")["roles"]
        gus = again.get("community/users/gus")
        bound = world.tokens[token_key(api.token)]["boundTo"]
    store.close()
    prebuilt = {role.id for role in PREBUILT_ROLES}
    custom = [(r["id"], r["name"]) for r in roles if r["id"] not in prebuilt]
    assert custom == [(role_id, "Kept")]
    assert bound == "ip:testclient"  # the binding survives with the token
    assert (gus["role"], gus["roleId"]) == ("org_user", role_id)


def test_state_seeds_an_empty_database_only(tmp_path: Path) -> None:
    db = tmp_path / "svc.sqlite"
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    for path, key in ((first, "one"), (second, "two")):
        path.write_text(
            "portals:\n  - {id: p1, urlKey: KEY, name: N, deployment: self-hosted,"
            " version: '11.3'}\n".replace("KEY", key)
        )
    open_world(first, db)[0].close()
    store, world = open_world(second, db)
    store.close()
    assert [p["urlKey"] for p in world.portals.values()] == ["one"]


def test_control_paths_are_absent_without_control(tmp_path: Path) -> None:
    store, world = open_world(None, None)
    with TestClient(create_app(store, world)) as client:
        reply = client.post("/_control/clock", data={"advanceHours": 1, "f": "json"})
    assert reply.status_code == 404
    assert reply.json()["error"]["code"] == 404
