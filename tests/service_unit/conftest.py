"""A small world served in-process through Starlette's TestClient."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from orgctl_service.app import create_app
from orgctl_service.seed import build_world
from orgctl_service.store import Store

CONTROL_SECRET = "control-secret-of-the-unit-tests"
CONTROL = {"Authorization": f"Bearer {CONTROL_SECRET}"}  # headers of a control call

STATE: dict[str, Any] = {
    "clock": "2026-11-01T00:00:00Z",
    "portals": [
        {
            "id": "hq00000000000000",
            "urlKey": "hq",
            "name": "HQ",
            "deployment": "self-hosted",
            "version": "10.6.1",
            "levelQuotas": {"1": 2, "2": 10},
            "disallowedApps": {"1": ["appstudio"]},
            "users": [
                {"username": "admin", "password": "pw", "role": "org_admin", "defaultAdmin": True},
                {"username": "ann", "password": "pw", "role": "Analyst", "level": 2},
                {"username": "ben", "password": "pw", "role": "Analyst", "ownedItems": 1},
                {"username": "cy", "password": "pw", "role": "org_user"},
            ],
            "roles": [
                {
                    "id": "r1",
                    "name": "Analyst",
                    "privileges": ["portal:user:joinGroup", "portal:user:createItem"],
                }
            ],
        },
        {
            "id": "fd00000000000000",
            "urlKey": "field",
            "name": "Field",
            "deployment": "self-hosted",
            "version": "11.3",
            "users": [
                {"username": "admin", "password": "pw", "role": "org_admin", "defaultAdmin": True},
                {"username": "fay", "password": "pw", "role": "org_user"},
            ],
            "webhooks": [{"id": "w1", "name": "hook"}],
            "serviceWebhooks": [{"id": "sw1", "name": "edits"}],
            "tasks": [
                {
                    "id": "t1",
                    "owner": "fay",
                    "itemId": "i1",
                    "runs": [
                        {
                            "runId": "a",
                            "created": "2026-10-01T00:00:00Z",
                            "resourceFiles": ["a.log"],
                        },
                        {
                            "runId": "b",
                            "created": "2026-10-02T00:00:00Z",
                            "resourceFiles": ["b.log"],
                        },
                    ],
                }
            ],
        },
    ],
    "collaborations": [
        {
            "id": "c1",
            "name": "Sharing",
            "host": "hq",
            "guests": ["field"],
            "workspaces": [
                {
                    "id": "ws1",
                    "name": "Data",
                    "schedules": {"field": {"startTime": "2026-11-01T06:00:00Z", "interval": 24}},
                }
            ],
            "invitations": [{"id": "inv1"}],
        }
    ],
}


class Api:
    """Calls one portal's roots with `f=json`, signed in as a member."""

    def __init__(self, client: TestClient, url_key: str) -> None:
        self.client = client
        self.url_key = url_key
        self.token = ""

    def login(self, username: str, password: str = "pw") -> Api:
        body = self.post("generateToken", username=username, password=password, expiration=20160)
        self.token = body["token"]
        return self

    def get(self, path: str, **fields: Any) -> Any:
        response = self.client.get(
            self._url(path), params={"f": "json", **fields}, headers=self._auth()
        )
        return response.json()

    def post(self, path: str, **fields: Any) -> Any:
        response = self.client.post(
            self._url(path), data={"f": "json", **fields}, headers=self._auth()
        )
        return response.json()

    def _url(self, path: str) -> str:
        root = "admin" if path.startswith("admin/") else "sharing/rest"
        return f"/{self.url_key}/{root}/{path.removeprefix('admin/')}"

    def _auth(self) -> dict[str, str]:
        return {"X-Esri-Authorization": f"Bearer {self.token}"} if self.token else {}


@pytest.fixture
def client() -> Iterator[TestClient]:
    store = Store(None)
    world = build_world(STATE)
    store.save_all(world)
    with TestClient(create_app(store, world, CONTROL_SECRET)) as test_client:
        yield test_client


@pytest.fixture
def hq(client: TestClient) -> Api:
    return Api(client, "hq").login("admin")


@pytest.fixture
def field(client: TestClient) -> Api:
    return Api(client, "field").login("admin")


def advance(client: TestClient, hours: float) -> None:
    moved = client.post(
        "/_control/clock", data={"advanceHours": hours, "f": "json"}, headers=CONTROL
    )
    assert moved.json()["success"]
