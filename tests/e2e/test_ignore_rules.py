"""Ignore rules against `orgctl serve` (README: Ignore rules): privileges the portal adds
to a role survive apply and never show as drift under `spec.ignorePrivileges`, and each
field `metadata.ignoreChanges` names is neither planned nor drift, in text, Markdown and
JSON, while the rest of the document is compared as usual."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .harness import MANIFESTS, Serve, World, demo_state_with, one_call, output_of, plan_json

pytestmark = pytest.mark.e2e

PRIVILEGES = MANIFESTS / "ignore-privileges"
CHANGES_HQ = MANIFESTS / "ignore-changes-hq"
CHANGES_FIELD = MANIFESTS / "ignore-changes-field"
TYPO = MANIFESTS / "ignore-changes-typo"

# The demo's Analyst, with two privileges the portal added by itself.
VENDOR = ("features:user:edit", "features:user:fullEdit")
ANALYST_LAST = (
    "          - portal:user:createItem    # beyond the level-1 nine: disabled for erin\n"
)
DESCRIPTION_LINE = (
    "Role/Analyst: ignoring spec.description (ignoreChanges); live differs at Role/Analyst"
    " (description)"
)
LEVEL_LINE = (
    "Members/staff: ignoring spec.members.*.level (ignoreChanges); live differs at"
    " Member/erin (level)"
)
KEPT_LINE = (
    "Role/Analyst: ignored 2 live privileges matching features:user:* (ignorePrivileges):"
    " features:user:edit, features:user:fullEdit"
)


@pytest.fixture
def vendor(serve: Serve, tmp_path: Path) -> World:
    """The demo world whose live Analyst also holds the two `VENDOR` privileges."""
    added = "".join(f"          - {privilege}\n" for privilege in VENDOR)
    return serve(demo_state_with(tmp_path, {ANALYST_LAST: added}))


def _analyst_privileges(world: World) -> set[str]:
    return set(world.api("hq").roles()["Analyst"]["privileges"])


def _ignored(plan: dict[str, object]) -> list[object]:
    found = plan.get("ignored", [])
    assert isinstance(found, list)
    return found


def test_vendor_privileges_survive_an_apply_that_changes_the_role(vendor: World) -> None:
    before = vendor.orgctl("drift", PRIVILEGES, "--format", "json", portal="hq")
    assert before.returncode == 2, output_of(before)  # shareToGroup is missing
    report = plan_json(before)
    (change,) = report["changes"]
    assert change["added"] == {"privileges": ["portal:user:shareToGroup"]}
    assert not change.get("removed"), change  # the vendor's privileges are no drift
    assert _ignored(report) == [
        {
            "address": "Role/Analyst",
            "reason": "ignorePrivileges",
            "privileges": list(VENDOR),
            "patterns": ["features:user:*"],
        }
    ]

    planned = vendor.orgctl("plan", PRIVILEGES, "--format", "json", portal="hq")
    sent = json.loads(
        one_call(plan_json(planned), "Role/Analyst", "setPrivileges")["params"]["privileges"]
    )
    assert set(VENDOR) <= set(sent["privileges"]), sent  # the whole set keeps them

    applied = vendor.orgctl("apply", PRIVILEGES, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert _analyst_privileges(vendor) >= {*VENDOR, "portal:user:shareToGroup"}

    after = vendor.orgctl("drift", PRIVILEGES, portal="hq")
    assert after.returncode == 0, output_of(after)
    assert "No drift." in after.stdout, after.stdout
    assert f"  {KEPT_LINE}" in after.stdout.splitlines(), after.stdout
    empty = vendor.orgctl("plan", PRIVILEGES, "--detailed-exitcode", portal="hq")
    assert empty.returncode == 0, output_of(empty)


def test_without_the_pattern_apply_strips_the_vendor_privileges(
    vendor: World, tmp_path: Path
) -> None:
    """The finding itself: the same manifests without ignorePrivileges take them away."""
    folder = tmp_path / "strict"
    shutil.copytree(PRIVILEGES, folder)
    portal = folder / "portal.yaml"
    portal.write_text(portal.read_text().replace('  ignorePrivileges: ["features:user:*"]\n', ""))
    applied = vendor.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert not set(VENDOR) & _analyst_privileges(vendor)


def test_a_role_s_own_pattern_keeps_what_it_matches_only(vendor: World, tmp_path: Path) -> None:
    """A Role's ignorePrivileges: fullEdit is kept, edit (matched by nothing) removed."""
    folder = tmp_path / "own"
    shutil.copytree(PRIVILEGES, folder)
    portal = folder / "portal.yaml"
    portal.write_text(portal.read_text().replace('  ignorePrivileges: ["features:user:*"]\n', ""))
    roles = folder / "roles.yaml"
    roles.write_text(
        roles.read_text().replace(
            "spec:\n", "spec:\n  ignorePrivileges: ['features:user:full*']\n", 1
        )
    )
    planned = vendor.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    (change,) = plan_json(planned)["changes"]
    assert change["removed"] == {"privileges": ["features:user:edit"]}
    applied = vendor.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    live = _analyst_privileges(vendor)
    assert "features:user:fullEdit" in live and "features:user:edit" not in live


def test_a_saved_plan_with_ignored_privileges_applies(vendor: World, tmp_path: Path) -> None:
    saved = tmp_path / "plan.json"
    planned = vendor.orgctl("plan", PRIVILEGES, "-o", saved, portal="hq")
    assert planned.returncode == 0, output_of(planned)
    assert _ignored(json.loads(saved.read_text()))[0]["address"] == "Role/Analyst"
    applied = vendor.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert KEPT_LINE in applied.stdout, applied.stdout  # the saved plan shown as planned
    assert _analyst_privileges(vendor) >= {*VENDOR, "portal:user:shareToGroup"}


def test_ignored_description_and_levels_are_neither_planned_nor_drift(demo: World) -> None:
    drift = demo.orgctl("drift", CHANGES_HQ, portal="hq")
    assert drift.returncode == 0, output_of(drift)
    lines = drift.stdout.splitlines()
    assert f"  {DESCRIPTION_LINE}" in lines, drift.stdout
    assert f"  {LEVEL_LINE}" in lines, drift.stdout

    planned = demo.orgctl(
        "plan", CHANGES_HQ, "--format", "json", "--detailed-exitcode", portal="hq"
    )
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    assert plan["changes"] == [] and plan["calls"] == []
    assert _ignored(plan) == [
        {
            "address": "Members/staff",
            "reason": "ignoreChanges",
            "paths": ["spec.members.*.level"],
            "differs": [{"address": "Member/erin", "fields": ["level"]}],  # dave's matches
        },
        {
            "address": "Role/Analyst",
            "reason": "ignoreChanges",
            "paths": ["spec.description"],
            "differs": [{"address": "Role/Analyst", "fields": ["description"]}],
        },
    ]
    markdown = demo.orgctl("plan", CHANGES_HQ, "--format", "markdown", portal="hq")
    what = DESCRIPTION_LINE.split(": ", 1)[1]
    assert f"- `Role/Analyst`: {what}\n" in markdown.stdout, markdown.stdout


def test_without_ignore_changes_the_same_manifests_differ(demo: World, tmp_path: Path) -> None:
    folder = tmp_path / "strict"
    shutil.copytree(CHANGES_HQ, folder)
    for file in folder.glob("*.yaml"):
        text = file.read_text()
        file.write_text("\n".join(line for line in text.split("\n") if "ignoreChanges" not in line))
    drift = demo.orgctl("drift", folder, "--format", "json", portal="hq")
    assert drift.returncode == 2, output_of(drift)
    changed = {c["address"]: sorted(c["after"]) for c in plan_json(drift)["changes"]}
    assert changed == {"Member/erin": ["level"], "Role/Analyst": ["description"]}


def test_other_fields_of_an_ignoring_document_are_still_managed(
    demo: World, tmp_path: Path
) -> None:
    """Members/staff ignores levels, not roles: dave's new role is planned."""
    folder = tmp_path / "role"
    shutil.copytree(CHANGES_HQ, folder)
    members = folder / "members.yaml"
    members.write_text(members.read_text().replace("dave: {role: Analyst", "dave: {role: org_user"))
    planned = demo.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    assert [(c["address"], c["after"]) for c in plan["changes"]] == [
        ("Member/dave", {"role": "org_user"})
    ]


def test_a_new_role_is_created_with_its_ignored_description(demo: World, tmp_path: Path) -> None:
    """As Terraform's ignore_changes: ignored on update, sent on create."""
    folder = tmp_path / "new"
    shutil.copytree(CHANGES_HQ, folder)
    roles = folder / "roles.yaml"
    roles.write_text(roles.read_text().replace("name: Analyst", "name: Surveyor"))
    (folder / "members.yaml").unlink()
    applied = demo.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    role = demo.api("hq").roles()["Surveyor"]
    assert role["description"] == "Written by the team, reworded on the portal since"


def test_an_ignored_schedule_start_is_no_drift_and_kept_live_when_the_job_changes(
    demo: World, tmp_path: Path
) -> None:
    drift = demo.orgctl("drift", CHANGES_FIELD, portal="field")
    assert drift.returncode == 0, output_of(drift)
    line = (
        "  Collaboration/c1: ignoring spec.workspaces.*.schedule.startTime (ignoreChanges);"
        " live differs at Workspace/c1/ws1 (schedule.startTime)"
    )
    assert line in drift.stdout.splitlines(), drift.stdout
    empty = demo.orgctl("plan", CHANGES_FIELD, "--detailed-exitcode", portal="field")
    assert empty.returncode == 0, output_of(empty)

    folder = tmp_path / "interval"
    shutil.copytree(CHANGES_FIELD, folder)
    collaborations = folder / "collaborations.yaml"
    collaborations.write_text(collaborations.read_text().replace("interval: 24", "interval: 12"))
    planned = demo.orgctl("plan", folder, "--format", "json", portal="field")
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    (change,) = plan["changes"]
    assert change["after"] == {"schedule": {"interval": 12}}
    params = one_call(plan, "Workspace/c1/ws1", "schedule/update")["params"]
    assert params["startTime"] == "1767225600000"  # the live start, 2026-01-01, not June's
    (ignored,) = _ignored(plan)
    assert ignored["differs"] == [  # startTime, not the interval the plan changes
        {"address": "Workspace/c1/ws1", "fields": ["schedule.startTime"]}
    ]

    strict = tmp_path / "strict"
    shutil.copytree(CHANGES_FIELD, strict)
    document = strict / "collaborations.yaml"
    document.write_text(document.read_text().replace("  ignoreChanges:", "  #"))
    differs = demo.orgctl("drift", strict, portal="field")
    assert differs.returncode == 2, output_of(differs)


def test_validate_names_a_misspelt_path_with_the_field_meant(demo: World) -> None:
    checked = demo.orgctl("validate", TYPO, portal="hq")
    assert checked.returncode == 1, output_of(checked)
    assert "members.yaml:7:" in checked.stdout + checked.stderr, output_of(checked)
    assert "did you mean spec.members.*.level?" in checked.stdout + checked.stderr


def test_a_privilege_the_portal_adds_after_planning_makes_the_saved_plan_stale(
    vendor: World, tmp_path: Path
) -> None:
    """The set a saved plan sends holds the privileges kept when it was made: one the
    portal adds later would be taken away, so the plan is refused as stale instead."""
    saved = tmp_path / "plan.json"
    planned = vendor.orgctl("plan", PRIVILEGES, "-o", saved, portal="hq")
    assert planned.returncode == 0, output_of(planned)
    api = vendor.api("hq")
    analyst = api.roles()["Analyst"]
    added = sorted({*analyst["privileges"], "features:user:manageVersions"})
    api.post(
        f"portals/{api.portal_id}/roles/{analyst['id']}/setPrivileges",
        privileges=json.dumps({"privileges": added}),
    )

    refused = vendor.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert refused.returncode == 1, output_of(refused)
    assert "stale plan" in refused.stdout + refused.stderr, output_of(refused)
    assert "features:user:manageVersions" in _analyst_privileges(vendor)
    replanned = vendor.orgctl("apply", PRIVILEGES, "--auto-approve", portal="hq")
    assert replanned.returncode == 0, output_of(replanned)
    assert {"features:user:manageVersions", *VENDOR} <= _analyst_privileges(vendor)


def test_a_renamed_role_keeps_its_vendor_privileges(vendor: World, tmp_path: Path) -> None:
    """Renamed in place (previousNames) while its privileges change: the set sent still
    holds what the patterns keep."""
    folder = tmp_path / "renamed"
    shutil.copytree(PRIVILEGES, folder)
    roles = folder / "roles.yaml"
    roles.write_text(
        roles.read_text().replace(
            "  name: Analyst\n", "  name: Field Analyst\n  previousNames: [Analyst]\n"
        )
    )
    before = vendor.api("hq").roles()["Analyst"]["id"]
    applied = vendor.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    role = vendor.api("hq").roles()["Field Analyst"]
    assert role["id"] == before
    assert {*VENDOR, "portal:user:shareToGroup"} <= set(role["privileges"])
    drift = vendor.orgctl("drift", folder, portal="hq")
    assert drift.returncode == 0, output_of(drift)
