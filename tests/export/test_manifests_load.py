"""What export writes, the manifest layer reads back unchanged: valid, describing exactly
the live state, and planned against that state: no changes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from reconciler.export import write_manifests
from reconciler.kinds.collaboration import slots as collaborations
from reconciler.kinds.webhook_settings import DECLARED, LIVE
from reconciler.manifest import validate
from reconciler.manifest.desired import load_desired
from reconciler.plan.planner import build_plan
from reconciler.state import Auth, LiveState, Member, Role, Workspace
from tests.export import worlds

NOW = 1_793_491_200.0  # 2026-11-01T00:00:00Z, the demo clock
AUTH = Auth(usernameEnv="ORGCTL_USERNAME", passwordEnv="ORGCTL_PASSWORD")
SETTINGS = {
    "notificationAttempts": 4,
    "notificationTimeOutInSeconds": 10,
    "notificationElapsedTimeInSeconds": 5,
    "numberOfFailures": 10,
    "daysInPast": 7,
}
# label: (live portal, members keep their level, webhook settings exported)
LIVES: dict[str, tuple[Callable[[], LiveState], bool, bool]] = {
    "hq 10.6.1 host": (worlds.hq, True, False),
    "hq 10.10 host": (lambda: worlds.hq("10.10"), False, False),
    "hq 10.5 host": (lambda: worlds.hq("10.5"), True, False),
    "field 11.3 guest": (lambda: worlds.field(settings=SETTINGS), False, True),
    "field 11.1 guest": (lambda: worlds.field("11.1", settings=SETTINGS), False, False),
    "field 10.6.1 guest": (lambda: worlds.field("10.6.1"), True, False),
    "cloud": (worlds.cloud, False, False),
}


def export(live: LiveState, out: Path) -> None:
    write_manifests(
        live,
        out,
        portal_url="http://127.0.0.1:8080/p/sharing/rest",
        admin_url="http://127.0.0.1:8080/p/admin",
        auth=AUTH,
    )


@pytest.mark.parametrize("label", list(LIVES))
def test_export_is_valid(tmp_path: Path, label: str) -> None:
    export(LIVES[label][0](), tmp_path)
    _documents, problems = validate(tmp_path, {})
    assert [str(p) for p in problems] == []


@pytest.mark.parametrize("label", list(LIVES))
def test_export_reads_back_as_the_live_state(tmp_path: Path, label: str) -> None:
    make_live, levels, settings = LIVES[label]
    live = make_live()
    export(live, tmp_path)
    desired = load_desired(tmp_path, {})
    assert desired.portal.platform == live.portal.platform
    assert desired.portal.auth == AUTH
    assert desired.roles == {n: _unmanaged_ids(r) for n, r in live.roles.items() if r.editable}
    assert desired.members == {
        u: Member(u, m.role, m.level if levels else None) for u, m in live.members.items()
    }
    assert set(desired.get(collaborations.DECLARED)) == set(live.get(collaborations.LIVE))
    for cid, collab in desired.get(collaborations.DECLARED).items():
        host = live.get(collaborations.LIVE)[cid].hostPortalId == live.portal.id
        for wid, workspace in collab.workspaces.items():
            _same_side(workspace, live.get(collaborations.LIVE)[cid].workspaces[wid], host)
    assert desired.get(DECLARED) == (live.get(LIVE).values if settings else None)


def _unmanaged_ids(role: Role) -> Role:
    return Role(role.name, role.description, role.privileges)


def _same_side(desired: Workspace, live: Workspace, host: bool) -> None:
    """Every field export wrote equals the live one; the other side's fields are absent."""
    if host:
        assert desired.groupLink is None and desired.schedule is None
        for key in ("name", "maxItemSizeInMB", "copyByRefIfCopyFail"):
            assert getattr(desired, key) in (None, getattr(live, key))
        return
    assert desired.name is None and desired.maxItemSizeInMB is None
    if desired.schedule is not None:
        assert live.schedule is not None
        assert desired.schedule.startTime == live.schedule.startTime
        assert desired.schedule.repeatCount == live.schedule.repeatCount
    if desired.groupLink is not None:
        assert live.groupLink is not None
        assert desired.groupLink.portalGroupId == live.groupLink.portalGroupId


def _with_fixed_role_and_odd_privilege() -> LiveState:
    """A pre-built role (left out) that a member holds, and a privilege beyond the catalog
    (moved to extraPrivileges)."""
    live = worlds.hq()
    live.roles["Viewer"] = Role(
        "Viewer", "", frozenset({"portal:user:viewOrgItems"}), id="viewer", editable=False
    )
    live.members["alice"] = Member("alice", "Viewer", 2)
    analyst = live.roles["Analyst"]
    live.roles["Analyst"] = replace(
        analyst, privileges=(analyst.privileges or frozenset()) | {"portal:user:runWebTools"}
    )
    return live


@pytest.mark.parametrize(
    "make_live", [*(entry[0] for entry in LIVES.values()), _with_fixed_role_and_odd_privilege]
)
def test_a_plan_of_the_export_against_the_same_live_state_is_empty(
    tmp_path: Path, make_live: Callable[[], LiveState]
) -> None:
    live = make_live()
    export(live, tmp_path)
    plan = build_plan(load_desired(tmp_path, {}), live, now=NOW)
    assert (plan.changes, plan.calls, plan.errors) == ((), (), ())
