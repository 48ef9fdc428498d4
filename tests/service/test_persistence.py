"""Persistence in SQLite across kill -9, seeding only an empty db, and concurrent writes."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.service.harness import Api, Service, succeeded, write_state
from tests.service.world import HQ, LEGACY_VIEWER


def role_names(api: Api) -> dict[str, str]:
    roles = api.listing("hq", f"portals/{HQ}/roles", "roles")
    return {role["id"]: role["name"] for role in roles}


def test_a_write_survives_kill_9_and_the_state_file_seeds_only_an_empty_db(
    tmp_path: Path,
) -> None:
    db, state = tmp_path / "state.sqlite", write_state("world", tmp_path)
    first = Service(db, state).start()
    api = Api(first.url)
    try:
        created = succeeded(api.post("hq", f"portals/{HQ}/createRole", name="Survivor"))["id"]
        succeeded(api.post("hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/delete"))
    finally:
        first.kill()
        api.close()

    for seed in (None, state):  # without --state, then with it: the db is no longer empty
        service = Service(db, seed).start()
        api = Api(service.url)
        try:
            names = role_names(api)
            assert names.get(created) == "Survivor"
            assert LEGACY_VIEWER not in names
        finally:
            api.close()
            service.kill()


def test_fifty_parallel_role_creations(world: Api) -> None:
    world.token("hq")  # one token, fetched before the threads start

    def create(n: int) -> str:
        body = world.post("hq", f"portals/{HQ}/createRole", name=f"Parallel {n}")
        return str(succeeded(body)["id"])

    with ThreadPoolExecutor(max_workers=50) as pool:
        ids = list(pool.map(create, range(50)))
    assert len(set(ids)) == 50
    names = role_names(world)
    assert {names[i] for i in ids} == {f"Parallel {n}" for n in range(50)}
    assert sum(name.startswith("Parallel ") for name in names.values()) == 50
