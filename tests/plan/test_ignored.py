"""ignorePrivileges in the planner (reconciler.kinds.role.ignored): live privileges matching a
pattern are kept in the set sent and are no difference; a declared one is declared."""

from __future__ import annotations

import json
from dataclasses import replace

from reconciler.kinds.collaboration import slots as collaborations
from reconciler.kinds.organization_webhooks import REMOVAL, WebhookRemoval
from reconciler.plan.model import Hidden, Ignored, Plan
from reconciler.plan.planner import build_plan
from reconciler.state import (
    Collaboration,
    DesiredState,
    IgnoredPaths,
    LiveState,
    Member,
    Role,
    Schedule,
    Workspace,
)
from tests.plan.world import (
    ANALYST_PRIVILEGES,
    DAY_MS,
    NOW,
    field_desired,
    field_live,
    hq_desired,
    hq_live,
)

VENDOR = frozenset({"features:user:edit", "features:user:vendorOnly"})  # one the catalog lacks


def _live() -> LiveState:
    live = hq_live()
    analyst = live.roles["Analyst"]
    live.roles["Analyst"] = replace(analyst, privileges=analyst.privileges | VENDOR)  # type: ignore[operator]
    return live


def _plan(desired: DesiredState, live: LiveState | None = None) -> Plan:
    return build_plan(desired, live or _live(), now=NOW)


def _desired(privileges: frozenset[str], portal: tuple[str, ...] = ()) -> DesiredState:
    desired = hq_desired(ignorePrivileges=portal)
    desired.roles["Analyst"] = Role("Analyst", privileges=privileges)
    return desired


def _sent(plan: Plan) -> set[str]:
    (call,) = [c for c in plan.calls if c.operation == "setPrivileges"]
    return set(json.loads(str(call.params["privileges"]))["privileges"])


def test_live_privileges_matching_a_portal_pattern_are_no_difference() -> None:
    plan = _plan(_desired(ANALYST_PRIVILEGES, ("features:user:*",)))
    assert plan.empty and not plan.errors, plan
    (ignored,) = plan.ignored
    assert (ignored.address, ignored.reason) == ("Role/Analyst", "ignorePrivileges")
    assert ignored.privileges == tuple(sorted(VENDOR))
    assert ignored.patterns == ("features:user:*",)


def test_the_set_sent_keeps_them_when_declared_privileges_change() -> None:
    declared = ANALYST_PRIVILEGES | {"portal:user:shareToGroup"}
    plan = _plan(_desired(declared, ("features:user:*",)))
    assert _sent(plan) == declared | VENDOR
    (change,) = plan.changes
    assert set(change.after["privileges"]) - set(change.before["privileges"]) == {  # type: ignore[index]
        "portal:user:shareToGroup"
    }
    assert not plan.errors, plan.errors  # the catalog's gaps are the portal's own privileges


def test_a_role_pattern_joins_the_portal_s_and_matches_case_sensitively() -> None:
    desired = _desired(ANALYST_PRIVILEGES | {"portal:user:shareToGroup"})
    desired.ignorePrivileges["Analyst"] = ("features:user:vendor*", "FEATURES:USER:EDIT")
    plan = _plan(desired)
    assert _sent(plan) == ANALYST_PRIVILEGES | {
        "portal:user:shareToGroup",
        "features:user:vendorOnly",
    }


def test_a_declared_privilege_matching_a_pattern_is_added_when_missing() -> None:
    declared = ANALYST_PRIVILEGES | {"features:user:fullEdit"}
    plan = _plan(_desired(declared, ("features:user:*",)))
    assert _sent(plan) == declared | VENDOR


def test_unmanaged_privileges_or_a_role_declared_absent_keep_nothing() -> None:
    desired = _desired(ANALYST_PRIVILEGES, ("features:user:*",))
    desired.roles["Analyst"] = Role("Analyst", description="Analysts")
    assert _plan(desired).ignored == ()
    desired.roles["Analyst"] = Role("Analyst", present=False)
    assert _plan(desired).ignored == ()


def test_a_pattern_without_wildcard_naming_nothing_known_is_a_warning() -> None:
    desired = _desired(ANALYST_PRIVILEGES, ("portal:user:joinGroops", "features:user:vendorOnly"))
    warnings = [str(w) for w in _plan(desired).warnings]
    assert warnings == [
        "Portal: ignorePrivileges pattern 'portal:user:joinGroops' has no wildcard and names no"
        " privilege the catalog or the portal knows (did you mean 'portal:user:joinGroup'?)"
    ]


def test_targets_limit_what_is_said_to_be_ignored() -> None:
    desired = _desired(ANALYST_PRIVILEGES, ("features:user:*",))
    assert build_plan(desired, _live(), now=NOW, targets=["Member/erin"]).ignored == ()
    assert len(build_plan(desired, _live(), now=NOW, targets=["Role/Analyst"]).ignored) == 1


def _field_without_job(start: int) -> tuple[DesiredState, LiveState]:
    """ws1 has no live job; the manifests declare a finite one whose startTime is ignored."""
    live = field_live()
    collaboration = live.get(collaborations.LIVE)["c1"]
    workspace = replace(collaboration.workspaces["ws1"], schedule=None)
    live.get(collaborations.LIVE)["c1"] = replace(collaboration, workspaces={"ws1": workspace})

    def declaring(schedule: Schedule) -> Collaboration:
        return Collaboration("c1", workspaces={"ws1": Workspace("ws1", schedule=schedule)})

    desired = field_desired()
    desired.get(collaborations.DECLARED)["c1"] = declaring(
        Schedule(None, 24, 3)
    )  # startTime ignored
    declared = desired.declared = field_desired()
    declared.get(collaborations.DECLARED)["c1"] = declaring(Schedule(start, 24, 3))
    desired.ignoring["Collaboration/c1"] = IgnoredPaths(
        ("spec.workspaces.*.schedule.startTime",),
        frozenset({"Collaboration/c1", "Workspace/c1/ws1"}),
        "Collaboration",
    )
    return desired, live


def test_a_job_the_portal_lacks_is_created_with_its_ignored_start() -> None:
    start = int(NOW * 1000) + DAY_MS
    desired, live = _field_without_job(start)
    plan = build_plan(desired, live, now=NOW)
    (call,) = plan.calls
    assert call.params["startTime"] == str(start), call.params


def test_a_finite_job_past_its_last_trigger_is_complete_though_its_start_is_ignored() -> None:
    desired, live = _field_without_job(int(NOW * 1000) - 10 * DAY_MS)
    plan = build_plan(desired, live, now=NOW)
    assert plan.empty, plan.changes


def test_an_ignored_entry_reads_back_from_the_plan_file() -> None:
    entries = (
        Ignored("Role/A", "ignorePrivileges", privileges=("x:y:z",), patterns=("x:*",)),
        Ignored(
            "Members/m",
            "ignoreChanges",
            ("spec.members.*.level",),
            differs=(Hidden("Member/b", ("level",)),),
        ),
        Ignored("Role/B", "ignoreChanges", ("spec.description",)),
    )
    for entry in entries:
        assert Ignored.from_json(entry.to_json()) == entry
    assert (
        str(entries[2])
        == "Role/B: ignoring spec.description (ignoreChanges); the live values match"
    )
    many = Ignored(
        "Role/C",
        "ignorePrivileges",
        privileges=tuple(f"a:b:{i}" for i in range(7)),
        patterns=("a:*",),
    )
    assert str(many).endswith("a:b:0, a:b:1, a:b:2, a:b:3, a:b:4 and 2 more")


def test_a_targeted_member_keeps_its_document_s_entry_with_only_its_difference() -> None:
    desired = hq_desired()
    declared = desired.declared = hq_desired()
    for state, level in ((desired, None), (declared, 2)):
        state.members = {u: Member(u, "Analyst", level) for u in ("dave", "erin")}
    desired.ignoring["Members/staff"] = IgnoredPaths(
        ("spec.members.*.level",), frozenset({"Member/dave", "Member/erin"}), "Members"
    )
    (whole,) = build_plan(desired, hq_live(), now=NOW).ignored
    assert whole.differs == (Hidden("Member/erin", ("level",)),)  # dave is at 2 already
    (targeted,) = build_plan(desired, hq_live(), now=NOW, targets=["Member/erin"]).ignored
    assert targeted == whole
    assert build_plan(desired, hq_live(), now=NOW, targets=["Member/dave"]).ignored == ()


def test_a_deletion_an_ignored_policy_field_spares_is_named() -> None:
    """OrganizationWebhooks ignoring `absent`: what the policy as declared would delete
    is what the line names (its document declares no address of it)."""
    desired = field_desired()
    desired.put(REMOVAL, WebhookRemoval())
    declared = desired.declared = field_desired()
    declared.put(REMOVAL, WebhookRemoval(absent=frozenset({"old-sync-hook"})))
    desired.ignoring["OrganizationWebhooks"] = IgnoredPaths(
        ("spec.absent",), frozenset({"OrganizationWebhooks"}), "OrganizationWebhooks"
    )
    plan = build_plan(desired, field_live(), now=NOW)
    assert plan.empty, plan.changes
    (ignored,) = plan.ignored
    assert ignored.differs == (Hidden("OrganizationWebhook/w2", (), deleted=True),)
    assert str(ignored).endswith("live differs at OrganizationWebhook/w2 (deleted)")
    assert Ignored.from_json(ignored.to_json()) == ignored
