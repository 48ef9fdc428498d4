"""Hand-built reports for the HTML tests: an access document of the shape
`orgctl access --format json` prints (README: "Access reviews"), its fleet form, and a
plan, each holding a role named like markup."""

from __future__ import annotations

from typing import Any

from reconciler.plan.model import Plan
from reconciler.plan.planner import build_plan
from reconciler.state import Member, Role
from tests.plan.world import NOW, hq_desired, hq_live

HOSTILE = "<script>alert(1)</script>"
HOSTILE_DESCRIPTION = '<img src="https://example.com/x.png" onerror="alert(2)">'
VIEW_USERS = "portal:admin:viewUsers"
JOIN = "portal:user:joinGroup"
CREATE = "portal:user:createItem"


def _member(
    username: str, role: str, level: int, privileges: list[tuple[str, bool]], **more: Any
) -> dict[str, Any]:
    return {
        "username": username,
        "role": role,
        "roleType": "builtin" if role.startswith("org_") else "custom",
        "level": level,
        "disabled": more.get("disabled", False),
        "lastLogin": more.get("lastLogin", "2026-10-30T08:00:00Z"),
        # Version 2 lists a member's role's privileges under the role, and here only
        # those its level disables.
        "disabledByLevel": sorted(n for n, off in privileges if off),
    }


def access_document(name: str = "hq") -> dict[str, Any]:
    """Five members: alice holds an administrative privilege through the hostile role,
    erin (level 1) holds it disabled, dave is disabled, carol has not signed in."""
    admin_role = [(VIEW_USERS, False), (JOIN, False), (CREATE, False)]
    return {
        "formatVersion": 2,
        "report": "access",
        "portal": {"name": name, "url": f"https://{name}.example.com/portal", "manifests": name},
        "generatedAt": "2026-11-25T12:00:00Z",
        "staleDays": 90,
        "privilegeFilter": [],
        "findings": [
            {
                "kind": "admin-custom-role",
                "severity": "warning",
                "subject": "Member/alice",
                "message": f"alice holds {VIEW_USERS} through the custom role {HOSTILE}",
                "member": "alice",
                "role": HOSTILE,
                "privileges": [VIEW_USERS],
            },
            {
                "kind": "role-unheld",
                "severity": "info",
                "subject": "Role/Unused",
                "message": "nobody holds Unused",
                "member": None,
                "role": "Unused",
                "privileges": [],
            },
        ],
        "roles": [
            {
                "name": HOSTILE,
                "id": "r1",
                "type": "custom",
                "holders": 2,
                "privileges": [CREATE, VIEW_USERS, JOIN],
                "administrative": True,
            },
            {
                "name": "Unused",
                "id": "r2",
                "type": "custom",
                "holders": 0,
                "privileges": [JOIN],
                "administrative": False,
            },
            {
                "name": "org_user",
                "id": None,
                "type": "builtin",
                "holders": 3,
                "privileges": [CREATE, JOIN],
                "administrative": False,
            },
        ],
        "members": [
            _member("alice", HOSTILE, 2, admin_role),
            _member("bob", "org_user", 2, [(CREATE, False), (JOIN, False)]),
            _member("carol", "org_user", 2, [(CREATE, False), (JOIN, False)], lastLogin=None),
            _member("dave", "org_user", 10, [(CREATE, False), (JOIN, False)], disabled=True),
            _member("erin", HOSTILE, 1, [(VIEW_USERS, True), (JOIN, False), (CREATE, True)]),
        ],
        "privileges": [
            {
                "name": VIEW_USERS,
                "administrative": True,
                "holders": 2,
                "disabledByLevel": 1,
                "roles": [{"name": HOSTILE, "holders": 2, "disabledByLevel": 1}],
            },
            {
                "name": JOIN,
                "administrative": False,
                "holders": 3,
                "disabledByLevel": 0,
                "roles": [{"name": "org_user", "holders": 3, "disabledByLevel": 0}],
            },
        ],
    }


def access_fleet_document() -> dict[str, Any]:
    return {
        "formatVersion": 1,
        "report": "access-fleet",
        "portals": [
            {
                "name": "hq",
                "manifests": "portals/hq",
                "state": "ok",
                "error": None,
                "findings": 2,
                "report": access_document("hq"),
            },
            {
                "name": HOSTILE,
                "manifests": "portals/bad",
                "state": "error",
                "error": f"portals/bad: cannot read {HOSTILE}",
                "findings": 0,
                "report": None,
            },
        ],
    }


def hostile_plan() -> Plan:
    """hq's demo plan, with a new role named like markup and alice moved into it."""
    desired = hq_desired()
    desired.roles[HOSTILE] = Role(HOSTILE, HOSTILE_DESCRIPTION, frozenset({JOIN, VIEW_USERS}))
    desired.members["alice"] = Member("alice", HOSTILE, 2)
    return build_plan(desired, hq_live(), now=NOW)
