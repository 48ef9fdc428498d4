"""A member's first sign-in raises their seeded hash to the sign-in cost (50 ms of scrypt)
without holding up the service: other requests are answered meanwhile, and the raised
hash is stored before the member gets their token."""

from __future__ import annotations

import asyncio

import httpx

from orgctl_service.app import create_app
from orgctl_service.passwords import SEED, SIGN_IN
from orgctl_service.seed import build_world
from orgctl_service.store import Store
from tests.service_unit.conftest import STATE

HQ = "hq00000000000000"
ROOT = "http://service/hq/sharing/rest"


def cost_of(stored: str) -> int:
    return int(stored.split("$")[1])


async def first_sign_in_beside_a_read() -> tuple[list[str], int]:
    """The order a first sign-in and a read begun during it end in, and the cost the
    member's hash had when the service remembered the sign-in."""
    world = build_world(STATE)
    store = Store(None)
    store.save_all(world)
    app = create_app(store, world)
    users = app.service.world.portals[HQ]["users"]
    ended: list[str] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as http:

        async def post(name: str, username: str) -> str:
            fields = {"f": "json", "username": username, "password": "pw"}
            answer = await http.post(f"{ROOT}/generateToken", data=fields)
            ended.append(name)
            return str(answer.json()["token"])

        token = await post("admin", "admin")
        signing_in = asyncio.create_task(post("first sign-in", "ann"))
        remembered = app.service.sign_ins.remembered.entries
        while (HQ, "ann") not in remembered:  # ann's password is checked
            await asyncio.sleep(0.001)
        cost_when_checked = cost_of(users["ann"]["passwordHash"])
        headers = {"X-Esri-Authorization": f"Bearer {token}"}
        read = await http.get(f"{ROOT}/portals/self", params={"f": "json"}, headers=headers)
        assert read.json()["id"] == HQ
        ended.append("read")
        await signing_in
    assert cost_of(users["ann"]["passwordHash"]) == SIGN_IN.n
    return ended, cost_when_checked


def test_a_first_sign_in_lets_other_requests_through_while_its_hash_is_raised() -> None:
    ended, cost_when_checked = asyncio.run(first_sign_in_beside_a_read())
    assert cost_when_checked == SEED.n  # the new hash was still being made
    assert ended == ["admin", "read", "first sign-in"]
