"""Renaming a role in place (Role `metadata.previousNames`), against `orgctl serve`: the
plan renames the live role with one updateRole call, which keeps its id, so every member
keeps the role, those no manifest lists included; a case-only rename works the same way.
Two live roles matching one declaration, and a previous name another declaration uses,
are errors naming both."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .harness import MANIFESTS, World, output_of, plan_json

pytestmark = pytest.mark.e2e

RENAME = MANIFESTS / "role-rename"
ANALYST_ID = "r0000000000001"  # the demo state's Analyst, held by dave and erin


def _renamed_folder(tmp_path: Path, name: str, previous: str) -> Path:
    """The role-rename manifests, the role named `name` with previousNames [previous]."""
    folder = tmp_path / "manifests"
    shutil.copytree(RENAME, folder)
    roles = folder / "roles.yaml"
    text = roles.read_text().replace("name: Field Analyst", f"name: {name}")
    roles.write_text(text.replace("previousNames: [Analyst]", f"previousNames: [{previous}]"))
    (folder / "members.yaml").unlink()
    return folder


def _holders(world: World) -> dict[str, str]:
    """Each member's custom role id, as the portal's member listing reports it."""
    members = world.api("hq").members()
    return {name: str(m.get("roleId")) for name, m in members.items() if m.get("roleId")}


def _apply_and_replan(world: World, folder: Path) -> None:
    applied = world.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    again = world.orgctl("plan", folder, "--detailed-exitcode", portal="hq")
    assert again.returncode == 0, output_of(again)
    assert "No changes. The portal matches the manifests." in again.stdout, again.stdout


def test_a_rename_keeps_every_member_s_role_with_one_call(demo: World) -> None:
    holders_before = _holders(demo)
    assert holders_before["dave"] == holders_before["erin"] == ANALYST_ID

    planned = demo.orgctl("plan", RENAME, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    assert plan["changes"] == [
        {
            "address": "Role/Field Analyst",
            "action": "update",
            "renamedFrom": "Analyst",
            "before": {"name": "Analyst"},
            "after": {"name": "Field Analyst"},
        }
    ]
    [call] = plan["calls"]
    assert call["operation"] == "updateRole"
    assert call["url"].endswith(f"/roles/{ANALYST_ID}/update")
    assert call["params"] == {
        "name": "Field Analyst",
        "description": "Views and creates content in the organization",
    }

    text = demo.orgctl("plan", RENAME, portal="hq")
    assert "  ~ Role/Field Analyst (renamed from Analyst)" in text.stdout, text.stdout
    markdown = demo.orgctl("plan", RENAME, "--format", "markdown", portal="hq")
    assert "@@ ~ Role/Field Analyst (renamed from Analyst) @@" in markdown.stdout

    _apply_and_replan(demo, RENAME)
    roles = demo.api("hq").roles()
    assert roles["Field Analyst"]["id"] == ANALYST_ID and "Analyst" not in roles
    assert _holders(demo) == holders_before  # erin, whom no manifest lists, included


def test_a_rename_with_new_privileges_renames_then_sets_them(demo: World, tmp_path: Path) -> None:
    folder = _renamed_folder(tmp_path, "Field Analyst", "Analyst")
    roles = folder / "roles.yaml"
    roles.write_text(roles.read_text().replace("    - portal:user:createItem\n", ""))
    planned = plan_json(demo.orgctl("plan", folder, "--format", "json", portal="hq"))
    [change] = planned["changes"]
    assert change["renamedFrom"] == "Analyst"
    assert change["removed"] == {"privileges": ["portal:user:createItem"]}
    assert [c["operation"] for c in planned["calls"]] == ["updateRole", "setPrivileges"]

    _apply_and_replan(demo, folder)
    privileges = demo.api("hq").roles()["Field Analyst"]["privileges"]
    assert "portal:user:createItem" not in privileges
    assert _holders(demo)["erin"] == ANALYST_ID


def test_a_case_only_rename_is_one_call_too(demo: World, tmp_path: Path) -> None:
    folder = _renamed_folder(tmp_path, "analyst", "Analyst")
    planned = plan_json(demo.orgctl("plan", folder, "--format", "json", portal="hq"))
    assert [c["renamedFrom"] for c in planned["changes"]] == ["Analyst"]
    assert [c["params"]["name"] for c in planned["calls"]] == ["analyst"]

    saved = tmp_path / "plan.json"  # a saved plan carries the rename as planned
    assert demo.orgctl("plan", folder, "-o", saved, portal="hq").returncode == 0
    applied = demo.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert "~ Role/analyst (renamed from Analyst)" in applied.stdout, applied.stdout
    again = demo.orgctl("plan", folder, "--detailed-exitcode", portal="hq")
    assert again.returncode == 0, output_of(again)
    roles = demo.api("hq").roles()
    assert roles["analyst"]["id"] == ANALYST_ID and "Analyst" not in roles
    assert _holders(demo)["dave"] == _holders(demo)["erin"] == ANALYST_ID


def test_two_live_roles_matching_one_declaration_are_an_error_naming_both(
    demo: World, tmp_path: Path
) -> None:
    folder = _renamed_folder(tmp_path, "Field Analyst", "Analyst, Legacy Viewer")
    before = demo.api("hq").snapshot()
    planned = demo.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 1, output_of(planned)
    [error] = plan_json(planned)["errors"]
    assert error["address"] == "Role/Field Analyst"
    assert "'Analyst' (id r0000000000001) and 'Legacy Viewer'" in error["message"]
    applied = demo.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 1, output_of(applied)
    assert demo.api("hq").snapshot() == before


def test_a_previous_name_another_declaration_uses_is_an_error_naming_both(
    demo: World, tmp_path: Path
) -> None:
    folder = _renamed_folder(tmp_path, "Field Analyst", "analyst")
    (folder / "analyst.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Role\nmetadata:\n  name: Analyst\n"
    )
    for command in ("validate", "plan"):
        refused = demo.orgctl(command, folder, portal="hq")
        assert refused.returncode == 1, output_of(refused)
        shown = refused.stdout + refused.stderr
        assert "roles.yaml:8:" in shown, shown  # the previous name's line
        assert "'analyst' is the name of Role \"Analyst\" (at " in shown, shown
        assert "analyst.yaml:1)" in shown, shown


def test_adopt_takes_the_live_values_of_a_role_not_yet_renamed_and_keeps_the_rename(
    demo: World, tmp_path: Path
) -> None:
    """Analyst's privileges changed by hand before the rename is applied: adopt writes
    them into the renamed role's document, whose name and previousNames stay, so the plan
    left is the rename alone."""
    folder = _renamed_folder(tmp_path, "Field Analyst", "Analyst")
    demo.api("hq").set_privileges("Analyst", ["portal:user:joinGroup"])
    adopted = demo.orgctl("adopt", "--drifted", folder, portal="hq")
    assert adopted.returncode == 0, output_of(adopted)
    roles = (folder / "roles.yaml").read_text()
    assert "  name: Field Analyst\n  previousNames: [Analyst]\n" in roles, roles
    assert "state: absent" not in roles and "    - portal:user:createItem" not in roles
    planned = plan_json(demo.orgctl("plan", folder, "--format", "json", portal="hq"))
    assert [c["operation"] for c in planned["calls"]] == ["updateRole"]
    assert planned["changes"][0]["renamedFrom"] == "Analyst"
