"""One identity rule for role names (`reconciler.names.ROLE_NAMES`), as the planner applies
it against the demo's hq (Analyst held by dave at level 2 and erin at level 1; Legacy
Viewer held by nobody): a role declared absent, pruned, kept or assigned in another case
is the live role of that name."""

from __future__ import annotations

from pathlib import Path

from reconciler.adopt.addresses import parse_address
from reconciler.adopt.adopter import adopt
from reconciler.adopt.files import ManifestFiles
from reconciler.export import write_manifests
from reconciler.names import ROLE_NAMES, USERNAMES
from reconciler.plan.model import Action, Plan
from reconciler.plan.planner import build_plan
from reconciler.state import Auth, LiveState, Member, Role
from tests.cli import env_with, orgctl, output_of
from tests.export import worlds as export_worlds
from tests.plan.world import NOW, hq_desired, hq_live

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "invalid"

LEGACY_ID = "r0000000000002"


def plan_for(
    *roles: Role,
    live: LiveState | None = None,
    target: dict[str, object] | None = None,
    **members: Member,
) -> Plan:
    desired = hq_desired(**(target or {}))
    desired.roles = {r.name: r for r in roles}
    desired.members = dict(members)
    return build_plan(desired, live or hq_live(), now=NOW)


def _deleted(plan: Plan) -> list[tuple[str, str]]:
    calls = {c.address: c for c in plan.calls if c.operation == "deleteRole"}
    return [
        (c.address, str(calls[c.address].arguments["roleId"]))
        for c in plan.changes
        if c.action is Action.DELETE
    ]


def test_a_role_declared_absent_in_another_case_is_deleted() -> None:
    plan = plan_for(Role("legacy viewer", present=False))
    assert not plan.errors
    assert _deleted(plan) == [("Role/legacy viewer", LEGACY_ID)]
    [change] = plan.changes
    assert change.before == {
        "name": "Legacy Viewer",
        "description": "Old viewers",
        "privileges": ["portal:user:viewOrgItems"],
    }


def test_a_pruned_portal_deletes_a_role_declared_absent_in_another_case() -> None:
    """The prune counts LEGACY VIEWER as declared; the absent rule is what deletes it."""
    plan = plan_for(
        Role("Analyst"),
        Role("LEGACY VIEWER", present=False),
        target={"pruneRoles": True},
    )
    assert not plan.errors
    assert _deleted(plan) == [("Role/LEGACY VIEWER", LEGACY_ID)]


def test_a_held_role_declared_absent_in_another_case_names_its_holders() -> None:
    plan = plan_for(Role("ANALYST", present=False))
    assert [str(e) for e in plan.errors] == [
        "Role/ANALYST: cannot delete: still assigned to dave, erin; assign them another role"
        " in a Members document"
    ]


def test_two_live_spellings_of_an_absent_role_are_an_error_naming_both() -> None:
    live = hq_live()
    live.roles["LEGACY VIEWER"] = Role("LEGACY VIEWER", "", frozenset(), id="rtwin")
    plan = plan_for(Role("legacy viewer", present=False), live=live)
    assert [str(e) for e in plan.errors] == [
        "Role/legacy viewer: the portal has 2 roles named 'legacy viewer' in some case:"
        " 'LEGACY VIEWER' (id rtwin) and 'Legacy Viewer' (id r0000000000002); role names"
        " ignore case, so orgctl cannot tell which one is meant: delete or rename the"
        " others on the portal"
    ]
    assert _deleted(plan) == []


def test_a_member_assigned_a_role_in_another_case_already_holds_it() -> None:
    """dave holds Analyst: `analyst` is that role, no move and no error; alice moves onto
    the live role's id."""
    plan = plan_for(dave=Member("dave", "analyst"), alice=Member("alice", "ANALYST"))
    assert not plan.errors
    assert [c.address for c in plan.changes] == ["Member/alice"]
    (move,) = plan.calls
    assert move.params == {"user": "alice", "role": "r0000000000001"}


def test_the_identity_rules() -> None:
    assert ROLE_NAMES.same("Field Analyst", "FIELD analyst")
    assert ROLE_NAMES.resolve("alpha", ["Alpha", "Beta"]) == "Alpha"
    assert ROLE_NAMES.resolve("alpha", ["Alpha", "ALPHA"]) is None
    assert ROLE_NAMES.resolve("alpha", ["Alpha", "alpha"]) == "alpha"
    assert ROLE_NAMES.closest("Legacy Veiwer", ["Analyst", "Legacy Viewer"]) == "Legacy Viewer"
    assert not USERNAMES.same("Alice", "alice")


def test_adopting_a_role_in_another_case_writes_the_live_role(tmp_path: Path) -> None:
    """`orgctl adopt Role/legacy viewer` of a role declared absent as `legacy viewer`: the
    live `Legacy Viewer` is that role, written back present, in the live spelling."""
    (tmp_path / "roles.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Role\nmetadata:\n  name: legacy viewer\n"
        "spec:\n  state: absent\n"
    )
    files = ManifestFiles.read(tmp_path)
    said = adopt(files, hq_live(), parse_address("Role/legacy viewer"))
    assert said == (
        f"Role/legacy viewer: name, state, description, privileges written to"
        f" {tmp_path / 'roles.yaml'}"
    )
    [(_, document)] = files.documents("Role")
    assert document["metadata"]["name"] == "Legacy Viewer"
    assert dict(document["spec"]) == {
        "description": "Old viewers",
        "privileges": ["portal:user:viewOrgItems"],
    }


def test_validate_refuses_a_member_on_a_role_declared_absent_in_another_case(
    tmp_path: Path,
) -> None:
    fixture = FIXTURES / "members-role-declared-absent"
    for source in fixture.iterdir():
        (tmp_path / source.name).write_text(source.read_text())
    members = tmp_path / "members.yaml"
    members.write_text(members.read_text().replace("role: Legacy Viewer", "role: LEGACY VIEWER"))
    checked = orgctl("validate", tmp_path, env=env_with())
    assert checked.returncode == 1, output_of(checked)
    assert "'LEGACY VIEWER' is declared absent (at" in checked.stdout + checked.stderr


def test_export_of_live_roles_one_in_any_case_writes_one_that_validates(tmp_path: Path) -> None:
    """A portal should never hold both (ROLE_1001); a hostile or broken one may. The
    manifests can declare one of them: export writes the first by name and says so."""
    live = export_worlds.hq()
    live.roles["LEGACY VIEWER"] = Role("LEGACY VIEWER", "twin", frozenset(), id="rtwin")
    summary = write_manifests(
        live,
        tmp_path,
        portal_url="http://127.0.0.1:8080/hq/sharing/rest",
        admin_url=None,
        auth=Auth(tokenEnv="ORGCTL_TOKEN"),
    )
    assert (
        "roles whose names differ only in case are one role to the portal (ROLE_1001), so one"
        " document each; left out: 'Legacy Viewer' (as 'LEGACY VIEWER')"
    ) in summary.notes
    checked = orgctl("validate", tmp_path, env=env_with())
    assert checked.returncode == 0, output_of(checked)
