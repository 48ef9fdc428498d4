"""A campaign's items from a live state built in memory: who is in scope, which of the
role's privileges each item lists, what speaks for revoking, and who reviews it (the
role's owners, else the fallback, never the member itself)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import pytest

from reconciler.certify.items import Inputs, Routed, campaign_items, expiring_grants
from reconciler.errors import UserError
from reconciler.kinds.campaign import Campaign
from reconciler.state import (
    NEVER_SIGNED_IN,
    Auth,
    DesiredState,
    Grant,
    LiveState,
    Member,
    PortalInfo,
    PortalTarget,
    Role,
)
from reconciler.versions import Platform

NOW_MS = 1_793_491_200_000  # 2026-11-01
DAY_MS = 86_400_000
PLATFORM = Platform.parse("self-hosted", "10.6.1")
OPS = frozenset({"portal:user:joinGroup", "portal:admin:viewUsers", "portal:admin:deleteUsers"})
VIEWER = frozenset({"portal:user:viewOrgItems"})


def _live() -> LiveState:
    recent = NOW_MS - 10 * DAY_MS
    members = [
        Member("olga", "Ops Admin", 2, disabled=False, lastLogin=recent),
        Member("lena", "Ops Admin", 1, disabled=False, lastLogin=recent),
        Member("dora", "org_admin", 2, disabled=True, lastLogin=recent),
        Member("nina", "org_admin", 2, disabled=False, lastLogin=NEVER_SIGNED_IN),
        Member("vic", "Viewer", 2, disabled=False, lastLogin=NOW_MS - 200 * DAY_MS),
        Member("ursula", "org_user", 2, disabled=False, lastLogin=recent),
    ]
    return LiveState(
        portal=PortalInfo("p1", "HQ", PLATFORM, "admin"),
        roles={
            "Ops Admin": Role("Ops Admin", "", OPS, id="r1"),
            "Viewer": Role("Viewer", "", VIEWER, id="r2"),
        },
        members={m.username: m for m in members},
    )


def _campaign(scope: dict[str, Any], fallback: list[str], owners: bool = True) -> Campaign:
    return Campaign.model_validate(
        {
            "apiVersion": "orgctl/v1",
            "kind": "Campaign",
            "metadata": {"name": "q4"},
            "spec": {
                "scope": scope,
                "reviewers": {"roleOwners": owners, "fallback": fallback},
                "due": "2026-12-15",
                "noResponse": "keep",
                "revokeTo": {"role": "org_user"},
            },
        }
    )


def _items(
    scope: dict[str, Any],
    fallback: list[str],
    owners: dict[str, tuple[str, ...]] | None = None,
    violations: dict[str, list[str]] | None = None,
) -> dict[str, Routed]:
    given = Inputs(_campaign(scope, fallback), owners or {}, violations or {}, NOW_MS)
    return {r.item["member"]: r for r in campaign_items(_live(), given)}


def test_administrative_only_takes_the_members_holding_an_administrative_privilege() -> None:
    items = _items({"administrativeOnly": True}, ["admin"])
    assert sorted(items) == ["dora", "lena", "nina", "olga"]
    assert items["olga"].item["privileges"] == [
        "portal:admin:deleteUsers",
        "portal:admin:viewUsers",
    ]


def test_a_member_in_scope_by_role_or_name_lists_every_privilege_of_its_role() -> None:
    items = _items(
        {"privileges": ["portal:admin:delete*"], "roles": ["viewer"], "members": ["ursula"]},
        ["admin"],
    )
    assert sorted(items) == ["dora", "lena", "nina", "olga", "ursula", "vic"]
    assert items["vic"].item["privileges"] == ["portal:user:viewOrgItems"]  # role names ignore case
    assert items["olga"].item["privileges"] == ["portal:admin:deleteUsers"]


def test_each_item_carries_what_a_reviewer_decides_on() -> None:
    item = _items({"members": ["vic"]}, ["admin"])["vic"].item
    assert item == {
        "member": "vic",
        "role": "Viewer",
        "level": 2,
        "privileges": ["portal:user:viewOrgItems"],
        "lastLogin": "2026-04-15T00:00:00Z",
        "disabled": False,
        "recommendation": ["stale: last signed in on 2026-04-15, 200 days ago (stale after 90)"],
        "decision": "pending",
        "comment": "",
    }


def test_recommendations_name_disabled_never_signed_in_level_one_and_policies() -> None:
    violations = {"olga": ["policy no-ops (mandatory): too much"]}
    items = _items({"administrativeOnly": True}, ["admin"], violations=violations)
    assert items["dora"].item["recommendation"] == ["disabled: the account is disabled"]
    assert items["nina"].item["recommendation"] == ["stale: has never signed in"]
    assert items["lena"].item["recommendation"] == ["level-1-disabled: level 1 disables 2 of them"]
    assert items["olga"].item["recommendation"] == [
        "policy violation: policy no-ops (mandatory): too much"
    ]


def test_an_item_goes_to_its_roles_owner_never_to_the_member_itself() -> None:
    owners: dict[str, tuple[str, ...]] = {"Ops Admin": ("olga", "sam")}
    items = _items({"roles": ["Ops Admin", "org_admin"]}, ["nina", "admin"], owners)
    assert items["lena"].reviewer == "olga"
    assert items["olga"].reviewer == "sam"  # the next owner: olga does not review herself
    assert items["dora"].reviewer == "nina"  # no owner: the fallback
    assert items["nina"].reviewer == "admin"  # the fallback other than the member


def test_role_owners_are_not_asked_when_the_campaign_says_so() -> None:
    given = Inputs(
        _campaign({"members": ["lena"]}, ["admin"], owners=False),
        {"Ops Admin": ("olga",)},
        {},
        NOW_MS,
    )
    assert [r.reviewer for r in campaign_items(_live(), given)] == ["admin"]


def test_a_member_only_itself_could_review_is_an_error_naming_it() -> None:
    with pytest.raises(UserError, match="review Member/nina: list fallback reviewers"):
        _items({"members": ["nina", "dora"]}, ["nina"])


def test_a_grant_ending_before_the_due_date_is_recommended_to_its_holders() -> None:
    now = dt.datetime.fromtimestamp(NOW_MS / 1000, dt.UTC)
    due = now + dt.timedelta(days=40)
    platform = Platform.parse("self-hosted", "10.6.1")
    target = PortalTarget("hq", "https://gis.example.com/portal/sharing/rest", platform, Auth())
    desired = DesiredState(portal=target)
    soon, later = now + dt.timedelta(days=10), due + dt.timedelta(days=1)
    desired.grants["Member/olga"] = (Grant("Member/olga", soon, "cover", role="Ops Admin"),)
    desired.grants["Member/vic"] = (Grant("Member/vic", later, "audit", role="Viewer"),)
    desired.grants["Member/nina"] = (Grant("Member/nina", now, "over", role="org_admin"),)
    desired.grants["Role/ops admin"] = (
        Grant(
            "Role/ops admin", soon, "migration", privileges=frozenset({"portal:admin:viewItems"})
        ),
    )
    expiring = expiring_grants(desired, _live(), now, due)
    assert expiring == {
        "olga": [
            "Member/olga until 2026-11-11T00:00:00Z (cover)",
            "Role/ops admin until 2026-11-11T00:00:00Z (migration)",
        ],
        "lena": ["Role/ops admin until 2026-11-11T00:00:00Z (migration)"],
    }
    given = Inputs(_campaign({"members": ["olga", "vic"]}, ["admin"]), {}, {}, NOW_MS)
    given = dataclasses.replace(given, expiring=expiring)
    items = {r.item["member"]: r.item for r in campaign_items(_live(), given)}
    assert items["olga"]["recommendation"] == [
        "grant expiring: Member/olga until 2026-11-11T00:00:00Z (cover)",
        "grant expiring: Role/ops admin until 2026-11-11T00:00:00Z (migration)",
    ]
    assert not any(r.startswith("grant") for r in items["vic"]["recommendation"])  # after due
