"""The access report's document (README: the access report's JSON), from small portals."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from reconciler.access.findings import FINDING_KINDS
from reconciler.access.view import held_by
from reconciler.catalog import LEVEL_ONE_PRIVILEGES
from reconciler.state import Role

from .portal import DAY_MS, NOW_MS, OPS, member, portal, report


def findings(document: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(f["severity"], f["kind"], f["subject"]) for f in document["findings"]]


def test_the_document_has_the_documented_keys_in_order() -> None:
    document = report(portal(member("admin", "org_admin")))
    assert list(document) == [
        "formatVersion",
        "report",
        "portal",
        "generatedAt",
        "staleDays",
        "privilegeFilter",
        "findings",
        "roles",
        "members",
        "privileges",
    ]
    assert document["generatedAt"] == "2026-11-01T00:00:00Z"
    assert document["portal"] == {
        "name": "hq",
        "url": "https://gis.example.com/portal/sharing/rest",
        "manifests": "portals/hq",
    }
    entry = document["members"][0]
    assert list(entry) == [
        "username",
        "role",
        "roleType",
        "level",
        "disabled",
        "lastLogin",
        "disabledByLevel",
    ]


def test_built_in_roles_hold_what_the_catalog_gives_them() -> None:
    document = report(
        portal(member("a", "org_admin"), member("p", "org_publisher"), member("u", "org_user"))
    )
    by_role = {r["name"]: set(r["privileges"]) for r in document["roles"]}
    held = {m["username"]: by_role[m["role"]] for m in document["members"]}
    assert "portal:admin:deleteUsers" in held["a"]
    assert not any(p.startswith("portal:admin:") for p in held["p"] | held["u"])
    assert "portal:publisher:publishFeatures" in held["p"] - held["u"]
    assert "features:user:edit" in held["u"]
    roles = {r["name"]: r for r in document["roles"]}
    assert roles["org_admin"]["type"] == "builtin" and roles["org_admin"]["id"] is None
    assert roles["org_admin"]["administrative"] and not roles["org_user"]["administrative"]


def test_a_level_one_member_holds_its_role_s_extra_privileges_disabled() -> None:
    document = report(portal(member("lena", "Ops", 1), member("olga", "Ops", 2)))
    members = {m["username"]: m for m in document["members"]}
    # The role lists its privileges once; a member names only those its level disables.
    ops = next(r for r in document["roles"] if r["name"] == "Ops")
    assert ops["privileges"] == [
        "portal:admin:deleteUsers",
        "portal:admin:viewUsers",
        "portal:user:joinGroup",
    ]
    assert members["lena"]["disabledByLevel"] == [
        "portal:admin:deleteUsers",
        "portal:admin:viewUsers",
    ]
    assert members["olga"]["disabledByLevel"] == []
    assert "portal:user:joinGroup" in LEVEL_ONE_PRIVILEGES
    view = next(p for p in document["privileges"] if p["name"] == "portal:admin:viewUsers")
    assert view == {
        "name": "portal:admin:viewUsers",
        "administrative": True,
        "holders": 2,
        "disabledByLevel": 1,
        "roles": [{"name": "Ops", "holders": 2, "disabledByLevel": 1}],
    }


def test_a_member_lists_no_privileges_of_its_own() -> None:
    """Version 2: a member references its role, whose privileges the document lists
    once, so the document grows with the members, not with members times privileges."""
    document = report(portal(member("admin", "org_admin"), member("lena", "Ops", 1)))
    assert document["formatVersion"] == 2
    for entry in document["members"]:
        assert list(entry) == [
            "username",
            "role",
            "roleType",
            "level",
            "disabled",
            "lastLogin",
            "disabledByLevel",
        ]
    for entry in document["privileges"]:
        assert list(entry) == ["name", "administrative", "holders", "disabledByLevel", "roles"]
        assert entry["holders"] == sum(r["holders"] for r in entry["roles"])


def test_a_privilege_is_written_once_per_role_whatever_the_members() -> None:
    few = report(portal(*(member(f"u{n}", "Ops") for n in range(2))))
    many = report(portal(*(member(f"u{n}", "Ops") for n in range(200))))
    written = [json.dumps(d).count('"portal:user:joinGroup"') for d in (few, many)]
    assert written[0] == written[1]
    assert json.dumps(many["members"]).count("portal:") == 0


DEFAULT_ADMINS = ("admin", "dora", "nina", "rita", "sam", "ursula")


def test_each_finding_kind_from_the_members_that_raise_it() -> None:
    live = portal(
        member("admin", "org_admin"),
        member("olga", "Ops"),
        member("lena", "Ops", 1),
        member("dora", "org_admin", disabled=True),
        member("sam", "org_admin", days_ago=91),
        member("nina", "org_admin", days_ago=-1),
        member("rita", "org_admin", days_ago=90),
        member("ursula", "org_admin", days_ago=None, disabled=None),
        roles={
            "Ops": Role("Ops", "", OPS, id="r1"),
            "Unused": Role("Unused", "", frozenset(), id="r2"),
            "Viewer": Role("Viewer", "", frozenset(), id="iAAAAAAAAAAAAAAA", editable=False),
        },
    )
    assert findings(report(live)) == [
        ("warning", "admin-custom-role", "Member/olga"),
        ("warning", "admin-disabled", "Member/dora"),
        ("warning", "admin-stale", "Member/nina"),
        ("warning", "admin-stale", "Member/sam"),
        # Every member assigned the built-in Administrator role is a default administrator.
        *(("info", "default-admin", f"Member/{u}") for u in DEFAULT_ADMINS),
        ("info", "level-one-disabled", "Member/lena"),
        ("info", "role-unheld", "Role/Unused"),
    ]
    # `policy` is judged from the manifests' policies (tests/e2e/test_policies.py), the
    # grants' findings from their grants (tests/e2e/test_grants.py).
    judged_elsewhere = {"policy", "grant-overdue", "grant-expiring"}
    assert {kind for _, kind, _ in findings(report(live))} == set(FINDING_KINDS) - judged_elsewhere


@pytest.mark.parametrize(("days_ago", "stale"), [(30, False), (90, False), (91, True), (-1, True)])
def test_stale_is_older_than_the_stale_days_or_never(days_ago: int, stale: bool) -> None:
    document = report(portal(member("sam", "org_admin", days_ago=days_ago)))
    assert (("warning", "admin-stale", "Member/sam") in findings(document)) is stale


LAST_SAM = ("info", "default-admin", "Member/sam")


def test_stale_days_zero_makes_any_earlier_sign_in_stale() -> None:
    live = portal(replace(member("sam", "org_admin"), lastLogin=NOW_MS - 1), roles={})
    assert findings(report(live, 0)) == [("warning", "admin-stale", "Member/sam"), LAST_SAM]
    just_now = portal(replace(member("sam", "org_admin"), lastLogin=NOW_MS), roles={})
    assert findings(report(just_now, 0)) == [LAST_SAM]


def test_a_disabled_account_is_not_also_called_stale() -> None:
    document = report(portal(member("dora", "org_admin", disabled=True, days_ago=-1), roles={}))
    assert findings(document) == [
        ("warning", "admin-disabled", "Member/dora"),
        ("info", "default-admin", "Member/dora"),
    ]


def test_a_last_sign_in_as_time_and_never_and_unknown() -> None:
    live = portal(
        member("a", "org_user", days_ago=2),
        member("b", "org_user", days_ago=-1),
        member("c", "org_user", days_ago=None),
    )
    last = {m["username"]: m["lastLogin"] for m in report(live)["members"]}
    assert last == {"a": "2026-10-30T00:00:00Z", "b": None, "c": None}
    assert NOW_MS - 2 * DAY_MS > 0


def test_the_privilege_filter_keeps_matching_privileges_and_their_holders() -> None:
    live = portal(member("admin", "org_admin"), member("olga", "Ops"), member("u", "org_user"))
    document = report(live, 90, "portal:admin:delete*")
    assert document["privilegeFilter"] == ["portal:admin:delete*"]
    assert [m["username"] for m in document["members"]] == ["admin", "olga"]
    held = held_by(document)
    for entry in document["members"]:
        assert {name for name, _ in held(entry)} <= {
            "portal:admin:deleteUsers",
            "portal:admin:deleteGroups",
            "portal:admin:deleteItems",
        }
    assert [p["name"] for p in document["privileges"]] == [
        "portal:admin:deleteGroups",
        "portal:admin:deleteItems",
        "portal:admin:deleteUsers",
    ]
    custom = next(f for f in document["findings"] if f["kind"] == "admin-custom-role")
    assert custom["privileges"] == ["portal:admin:deleteUsers"]
    # Roles keep every privilege and holder: the filter is about members and privileges.
    assert {r["name"]: r["holders"] for r in document["roles"]}["org_user"] == 1


def test_a_filter_matching_nothing_a_finding_names_drops_the_finding() -> None:
    document = report(
        portal(member("sam", "org_admin", days_ago=-1), roles={}), 90, "portal:user:*"
    )
    assert findings(document) == []
    assert [m["username"] for m in document["members"]] == ["sam"]


def test_a_member_whose_role_is_not_listed_holds_nothing_known() -> None:
    document = report(portal(member("x", "Gone")))
    assert document["members"] == [
        {
            "username": "x",
            "role": "Gone",
            "roleType": None,
            "level": 2,
            "disabled": False,
            "lastLogin": "2026-10-31T00:00:00Z",
            "disabledByLevel": [],
        }
    ]
    assert held_by(document)(document["members"][0]) == ()


def test_the_default_administrators_are_the_built_in_role_s_members_and_the_last_is_marked() -> (
    None
):
    """Not a flag of one account (docs/rules.md §5): every org_admin member, and never a
    custom role, however administrative."""
    two = portal(member("admin", "org_admin"), member("admin2", "org_admin"), member("olga", "Ops"))
    messages = {
        f["subject"]: f["message"] for f in report(two)["findings"] if f["kind"] == "default-admin"
    }
    assert messages == {
        "Member/admin": "admin is a default administrator (org_admin)",
        "Member/admin2": "admin2 is a default administrator (org_admin)",
    }
    one = portal(member("admin2", "org_admin"), member("olga", "Ops"))
    (last,) = [f for f in report(one)["findings"] if f["kind"] == "default-admin"]
    assert last["message"] == "admin2 is a default administrator (org_admin), the portal's last one"
