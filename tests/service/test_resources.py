"""The portal's file resources, where orgctl keeps its apply lock: added texts replace a
key's text, list in pages, read back, are removed, and only an administrator writes."""

from __future__ import annotations

import json

from tests.service.harness import Api, error_of, succeeded
from tests.service.world import HQ

LEASE = {"id": "0123456789abcdef", "holder": "ci@runner", "pid": 7, "since": 1, "until": 2}


def add(api: Api, key: str, text: str, **form: str) -> dict[str, object]:
    return api.post("hq", f"portals/{HQ}/addResource", key=key, text=text, **form)  # type: ignore[no-any-return]


def test_a_resource_is_added_replaced_listed_read_and_removed(world: Api) -> None:
    succeeded(add(world, "orgctl-apply-lock.json", json.dumps(LEASE), access="orgprivate"))
    newer = {**LEASE, "id": "fedcba9876543210"}
    succeeded(add(world, "orgctl-apply-lock.json", json.dumps(newer)))  # replaces, as documented
    listed = world.listing("hq", f"portals/{HQ}/resources", "resources")
    assert [(r["key"], r["access"]) for r in listed] == [("orgctl-apply-lock.json", "public")]
    assert world.get("hq", "portals/self/resources/orgctl-apply-lock.json") == newer
    succeeded(world.post("hq", "portals/self/removeResource", key="orgctl-apply-lock.json"))
    gone = world.get("hq", "portals/self/resources/orgctl-apply-lock.json")
    error_of(gone, 404)
    again = world.post("hq", "portals/self/removeResource", key="orgctl-apply-lock.json")
    error_of(again, 404)


def test_resource_writes_are_for_administrators_and_keys_are_file_names(world: Api) -> None:
    alice = world.token("hq", "alice")
    refused = world.post("hq", f"portals/{HQ}/addResource", auth=alice, key="x.json", text="{}")
    error_of(refused, 403)
    error_of(add(world, "../x.json", "{}"), 400)
    error_of(add(world, "x.json", "{}", access="everyone"), 400)
    assert world.listing("hq", f"portals/{HQ}/resources", "resources") == []
