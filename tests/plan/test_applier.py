"""A plan made by one account for another to apply (README: a reviewer's read-only
account): capabilities are predicted for `spec.applier`, or only warned about; what the
planning account may not read is said by resource; a saved plan is compared as it was
read, whoever applies it."""

from __future__ import annotations

from dataclasses import replace

from reconciler.catalog import privileges_for
from reconciler.kinds.collaboration import slots as collaborations
from reconciler.kinds.members import live as members_live
from reconciler.kinds.task_run_retention import POLICIES, TASKS, RunRetention
from reconciler.kinds.webhook_settings import DECLARED, LIVE, LiveSettings
from reconciler.operations import Capability
from reconciler.plan.fingerprint import live_fingerprint
from reconciler.plan.planner import build_plan
from reconciler.plan.unread import as_planned, needs
from reconciler.state import Caller, Collaboration, LiveState, Member, Role, Workspace
from reconciler.versions import Platform
from tests.plan.world import NOW, field_desired, field_live, hq_desired, hq_live

FIELD_ANALYST = Role("Field Analyst", "Views", frozenset({"portal:user:viewOrgItems"}))
VIEWS = frozenset({"portal:admin:viewUsers", "portal:admin:viewItems"})
REVIEWER = Caller("rita", "org_user", "r0000000000009", VIEWS)
DEFAULT_ADMIN = Caller("admin", "org_admin", "org_admin", None)
ADMIN2 = Caller("admin2", "org_admin", "org_admin", None)  # a second default administrator
EVERY_ADMINISTRATIVE = frozenset(
    p
    for p in privileges_for(Platform.parse("self-hosted", "10.6.1"))
    if p.startswith("portal:admin:")
)
DEPUTY = Caller("deputy", "org_user", "rDeputy00000001", EVERY_ADMINISTRATIVE)
REFUSED = "You do not have permissions to access this resource"


def as_reviewer(live: LiveState, applier: Caller | None = None) -> LiveState:
    live.portal = replace(live.portal, caller=REVIEWER, username=REVIEWER.username)
    live.members["rita"] = Member("rita", "Reviewer", 2)
    live.applier = applier
    return live


def test_without_an_applier_the_signed_in_account_s_refusals_are_warnings() -> None:
    desired = hq_desired()
    desired.roles = {FIELD_ANALYST.name: FIELD_ANALYST}
    plan = build_plan(desired, as_reviewer(hq_live()), now=NOW)
    assert plan.errors == ()
    assert [str(w) for w in plan.warnings] == [
        f"Role/Field Analyst: createRole, setPrivileges need {Capability.DEFAULT_ADMIN.value};"
        " the signed-in user rita (org_user) is not: the account that applies must be",
        "Portal: the signed-in user rita (org_user) may not make 2 of this plan's calls: name"
        " the member that applies in the Portal's spec.applier, and the plan checks them for it",
    ]


def test_the_plan_predicts_for_the_applier_not_for_the_signed_in_account() -> None:
    desired = hq_desired(applier="admin")
    desired.roles = {FIELD_ANALYST.name: FIELD_ANALYST}
    plan = build_plan(desired, as_reviewer(hq_live(), DEFAULT_ADMIN), now=NOW)
    assert (plan.errors, plan.warnings, len(plan.calls)) == ((), (), 2)


def test_a_second_administrator_as_applier_is_predicted_to_create_roles() -> None:
    desired = hq_desired(applier="admin2")
    desired.roles = {FIELD_ANALYST.name: FIELD_ANALYST}
    plan = build_plan(desired, as_reviewer(hq_live(), ADMIN2), now=NOW)
    assert (plan.errors, plan.warnings, len(plan.calls)) == ((), (), 2)


def test_an_applier_that_may_not_make_a_call_is_an_error_naming_it() -> None:
    """A custom role holding every administrative privilege is no default administrator."""
    desired = hq_desired(applier="deputy")
    desired.roles = {FIELD_ANALYST.name: FIELD_ANALYST}
    plan = build_plan(desired, as_reviewer(hq_live(), DEPUTY), now=NOW)
    assert [str(e) for e in plan.errors] == [
        f"Role/Field Analyst: createRole, setPrivileges need {Capability.DEFAULT_ADMIN.value};"
        " spec.applier deputy (org_user) is not, so the portal would refuse them (403)"
    ]


def test_an_applier_who_is_not_a_member_is_an_error() -> None:
    plan = build_plan(hq_desired(applier="ghost"), as_reviewer(hq_live()), now=NOW)
    assert [str(e) for e in plan.errors] == [
        "Portal: spec.applier names ghost, who is not a member of the portal (the member"
        " listing does not hold it)"
    ]


def test_apply_checks_the_signed_in_account_and_says_it_is_not_the_applier() -> None:
    desired = hq_desired(applier="admin")
    desired.roles = {FIELD_ANALYST.name: FIELD_ANALYST}
    live = as_reviewer(hq_live(), DEFAULT_ADMIN)
    plan = build_plan(desired, live, now=NOW, signed_in_applies=True)
    assert [e.address for e in plan.errors] == ["Role/Field Analyst"]
    assert "the signed-in user rita" in plan.errors[0].message
    assert [str(w) for w in plan.warnings] == [
        "Portal: spec.applier names admin, but rita is signed in to apply; the calls are"
        " checked against what it may do"
    ]


def test_collaborations_not_read_are_an_error_only_where_one_is_declared() -> None:
    live = as_reviewer(hq_live(), DEFAULT_ADMIN)
    live.put(collaborations.LIVE, {})
    live.unread = {"Collaboration/*": REFUSED}
    quiet = build_plan(hq_desired(applier="admin"), live, now=NOW)
    assert quiet.errors == ()
    (warning,) = quiet.warnings
    assert warning.address == "Collaboration/*" and warning.message.startswith(
        f"not compared: rita may not read it ({REFUSED}); reading it needs an organization"
        " administrator or a holder of portal:admin:manageCollaborations"
    )
    assert quiet.notCompared == {"Collaboration/*": REFUSED}
    desired = hq_desired(applier="admin")
    desired.put(
        collaborations.DECLARED,
        {"c1": Collaboration("c1", workspaces={"ws1": Workspace("ws1", "X")})},
    )
    declared = build_plan(desired, live, now=NOW)
    assert [e.address for e in declared.errors] == ["Collaboration/c1"]
    assert declared.errors[0].message.startswith("cannot compare: rita may not read")
    assert declared.calls == ()


def test_settings_not_read_are_an_error_only_when_undeclared_fields_would_be_reset() -> None:
    live = as_reviewer(field_live(), DEFAULT_ADMIN)
    live.unread = {"WebhookSettings": REFUSED}
    live.put(LIVE, LiveSettings(None, REFUSED))
    desired = field_desired(applier="admin")
    desired.put(DECLARED, {"notificationAttempts": 4})
    partial = build_plan(desired, live, now=NOW)
    assert [e.address for e in partial.errors] == ["WebhookSettings"]
    assert "would reset undeclared fields" in partial.errors[0].message
    desired.put(
        DECLARED,
        {
            "notificationAttempts": 4,
            "notificationTimeOutInSeconds": 10,
            "notificationElapsedTimeInSeconds": 5,
            "numberOfFailures": 5,
            "daysInPast": 5,
        },
    )
    whole = build_plan(desired, live, now=NOW)
    assert whole.errors == () and [c.address for c in whole.calls] == ["WebhookSettings"]


def test_a_saved_plan_compares_the_state_as_its_own_account_read_it() -> None:
    """The reviewer could not read the collaborations; the administrator can. Masked as
    the plan says, both read the same portal, whoever is signed in."""
    reviewer = as_reviewer(hq_live(), DEFAULT_ADMIN)
    reviewer.put(collaborations.LIVE, {})
    reviewer.unread = {"Collaboration/*": REFUSED}
    plan = build_plan(hq_desired(applier="admin"), reviewer, now=NOW)
    administrator = hq_live()
    administrator.members["rita"] = Member("rita", "Reviewer", 2)
    assert live_fingerprint(administrator) != plan.liveFingerprint
    assert live_fingerprint(as_planned(administrator, plan.notCompared)) == plan.liveFingerprint


def test_task_runs_not_read_are_the_retention_kind_s_part() -> None:
    """A refused listing of frank's tasks: an error where a policy names frank, with who
    may read it; a saved plan's applier forgets frank's tasks, and the state it read
    keeps them."""
    reviewer = as_reviewer(field_live(), DEFAULT_ADMIN)
    reviewer.put(TASKS, {})
    reviewer.unread = {"TaskRun/frank/*": REFUSED}
    desired = field_desired(applier="admin")
    desired.put(POLICIES, [RunRetention("nightly", "frank", frozenset({"*"}), keepLast=1)])
    plan = build_plan(desired, reviewer, now=NOW)
    (error,) = plan.errors
    assert error.address == "TaskRun/frank/*"
    assert error.message.endswith(
        "reading it needs the member itself or an organization administrator"
    )
    assert plan.calls == () and plan.notCompared == {"TaskRun/frank/*": REFUSED}
    administrator = field_live()
    planned = as_planned(administrator, plan.notCompared)
    assert planned.get(TASKS) == {} and list(administrator.get(TASKS)) == ["frank"]
    unread = field_live()
    unread.put(TASKS, {})
    assert live_fingerprint(planned) == live_fingerprint(unread) != live_fingerprint(administrator)


def test_a_part_no_kind_owns_says_only_that_it_was_not_read() -> None:
    assert needs("Unknown/*") == "reading it needs an account that may read it"
    assert needs("TaskRun/frank/*").endswith("the member itself or an organization administrator")


def test_the_applier_holds_what_its_custom_role_holds_at_its_level() -> None:
    roles = {"r9": VIEWS | {"portal:user:viewOrgItems"}}  # a custom role's privileges, by id
    entry = {"username": "rita", "role": "org_user", "roleId": "r9", "level": "1"}
    found = members_live.applier(entry, roles)
    assert found is not None and found.privileges == {"portal:user:viewOrgItems"}
    uma = {"username": "uma", "role": "org_user", "roleId": "org_user"}
    user = members_live.applier(uma, roles)
    assert user is not None and user.privileges == frozenset()
    admin = {"username": "admin", "role": "org_admin", "roleId": "org_admin"}
    assert members_live.applier(admin, roles) == DEFAULT_ADMIN
