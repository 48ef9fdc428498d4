"""The Portal Administrator API's license resources (docs/rules.md §A, "Level quotas"),
in the vendor's shapes and with its access rules: `portaladmin/system/licenses` up to
10.6.1 (features per level), `portaladmin/license` from 10.7 (user types)."""

from __future__ import annotations

from typing import Any

from tests.service.harness import Api, error_of


def portal_admin(api: Api, portal: str, path: str, user: str = "admin") -> Any:
    headers = api.auth_headers(portal, user)
    return api.http.get(f"{api.url}/{portal}/portaladmin/{path}?f=json", headers=headers).json()


def test_levels_and_their_quotas_as_the_vendor_publishes_them(world_ro: Api) -> None:
    body = portal_admin(world_ro, "hq", "system/licenses")
    features = {f["level"]: f for f in body["features"]}
    assert {level: f["maximumRegisteredMembers"] for level, f in features.items()} == {
        "1": 10,
        "2": 50,
    }
    members = world_ro.listing("hq", "portals/self/users", "users")
    by_level = {level: sum(1 for m in members if m["level"] == level) for level in ("1", "2")}
    assert {level: f["currentRegisteredMembers"] for level, f in features.items()} == by_level
    assert body["maximumRegisteredMembers"] == 60 and body["isValid"] is True
    assert isinstance(body["expiration"], int)


def test_only_an_administrator_reads_the_licenses(world_ro: Api) -> None:
    refused = portal_admin(world_ro, "hq", "system/licenses", user="alice")
    assert refused["status"] == "error" and refused["code"] == 403


def test_user_types_replace_levels_at_10_7(world_ro: Api) -> None:
    assert portal_admin(world_ro, "hq", "license")["code"] == 404  # 10.6.1: levels
    body = portal_admin(world_ro, "field", "license")
    assert body["version"] == "11.3" and body["userTypes"] == []  # no quota in the state
    assert portal_admin(world_ro, "field", "system/licenses")["code"] == 404
    refused = portal_admin(world_ro, "field", "license", user="frank")
    assert refused["code"] == 403


def test_hosted_cloud_has_no_portal_administrator_api(world_ro: Api) -> None:
    assert portal_admin(world_ro, "cloud", "system/licenses")["code"] == 404


def test_portal_self_no_longer_carries_the_quotas(world_ro: Api) -> None:
    body = world_ro.get("hq", "portals/self")
    assert "levelQuotas" not in body
    error_of(world_ro.get("hq", "portals/self", auth="not-a-token"), 498)
