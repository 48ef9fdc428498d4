"""Strict mode for roles (Portal `spec.pruneRoles`), against `orgctl serve`: the custom
roles no manifest declares are deleted, except those `spec.keepRoles` names (by name in
any case, or by id) and the pre-built ones; a role still held is an error naming its
holders unless the same plan moves them off; the deletions count against
`safety.maxDeletes`. Without pruneRoles, drift mentions the undeclared roles as
information, not drift."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .harness import (
    DEMO_HQ_ADMIN,
    DEMO_HQ_ROLES,
    MANIFESTS,
    Serve,
    World,
    demo_state_with,
    output_of,
    plan_json,
)

pytestmark = pytest.mark.e2e

PRUNE = MANIFESTS / "prune-roles"
# Beside the demo's Analyst (declared) and Legacy Viewer (undeclared, held by nobody).
EXTRA_ROLES = (
    "      - {id: r00000000000k1, name: Kept By Name, description: kept by name}\n"
    "      - {id: r00000000000k2, name: Kept By Id, description: kept by id}\n"
    "      - {id: r00000000000s1, name: Scratch, description: held by nobody}\n"
    "      - {id: r00000000000h1, name: Held, description: held by gina}\n"
)
GINA = "      - {username: gina, password: gina-pass, role: Held, level: 2}\n"
PREBUILT_AND_KEPT = {"Analyst", "Kept By Name", "Kept By Id", "Viewer", "Data Editor"}


@pytest.fixture
def portal(serve: Serve, tmp_path: Path) -> World:
    return serve(demo_state_with(tmp_path, {DEMO_HQ_ADMIN: GINA, DEMO_HQ_ROLES: EXTRA_ROLES}))


def _with_gina_moved(tmp_path: Path, max_deletes: int = 2) -> Path:
    folder = tmp_path / "prune"
    shutil.copytree(PRUNE, folder)
    (folder / "members.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Members\nmetadata:\n  name: staff\nspec:\n"
        "  members:\n    gina: {role: org_user}\n"
    )
    portal_file = folder / "portal.yaml"
    text = portal_file.read_text().replace("maxDeletes: 2", f"maxDeletes: {max_deletes}")
    portal_file.write_text(text)
    return folder


def _deleted(plan: dict[str, object]) -> list[str]:
    changes = plan["changes"]
    assert isinstance(changes, list)
    return [c["address"] for c in changes if c["action"] == "delete"]


def test_a_held_undeclared_role_is_an_error_naming_its_holders(portal: World) -> None:
    before = portal.api("hq").snapshot()
    planned = portal.orgctl("plan", PRUNE, "--format", "json", portal="hq")
    assert planned.returncode == 1, output_of(planned)
    plan = plan_json(planned)
    assert _deleted(plan) == ["Role/Legacy Viewer", "Role/Scratch"]
    [error] = plan["errors"]
    assert error["address"] == "Role/Held"
    assert error["message"].startswith("cannot delete: still assigned to gina; move them")
    applied = portal.orgctl("apply", PRUNE, "--auto-approve", portal="hq")
    assert applied.returncode == 1, output_of(applied)
    assert portal.api("hq").snapshot() == before


def test_prune_deletes_exactly_the_undeclared_unheld_unkept_roles(
    portal: World, tmp_path: Path
) -> None:
    """gina moves off Held in the same plan, so Held goes too, after her move; three
    deletions are more than maxDeletes (2) until --allow-deletes."""
    folder = _with_gina_moved(tmp_path)
    planned = portal.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 1, output_of(planned)
    plan = plan_json(planned)
    assert _deleted(plan) == ["Role/Held", "Role/Legacy Viewer", "Role/Scratch"]
    assert [e["message"] for e in plan["errors"]] == [
        "the plan deletes 3 resources, more than safety.maxDeletes (2); review it and pass"
        " --allow-deletes"
    ]

    allowed = portal.orgctl("plan", folder, "--format", "json", "--allow-deletes", portal="hq")
    assert allowed.returncode == 0, output_of(allowed)
    calls = plan_json(allowed)["calls"]
    move = next(c for c in calls if c["address"] == "Member/gina")
    held = next(c for c in calls if c["address"] == "Role/Held")
    assert held["operation"] == "deleteRole" and move["seq"] in held["dependsOn"]

    applied = portal.orgctl("apply", folder, "--auto-approve", "--allow-deletes", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert set(portal.api("hq").roles()) == PREBUILT_AND_KEPT
    again = portal.orgctl("plan", folder, "--detailed-exitcode", portal="hq")
    assert again.returncode == 0, output_of(again)


def test_a_role_renamed_in_place_is_declared_and_never_pruned(
    portal: World, tmp_path: Path
) -> None:
    folder = _with_gina_moved(tmp_path, max_deletes=3)
    (folder / "roles.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Role\nmetadata:\n  name: Field Analyst\n"
        "  previousNames: [Analyst]\n"
    )
    planned = portal.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    assert _deleted(plan) == ["Role/Held", "Role/Legacy Viewer", "Role/Scratch"]
    renamed = [c for c in plan["changes"] if c.get("renamedFrom") == "Analyst"]
    assert [c["address"] for c in renamed] == ["Role/Field Analyst"]


def test_drift_mentions_undeclared_roles_as_information_only(portal: World, tmp_path: Path) -> None:
    folder = tmp_path / "strict-off"
    shutil.copytree(PRUNE, folder)
    portal_file = folder / "portal.yaml"
    portal_file.write_text(portal_file.read_text().replace("pruneRoles: true", "pruneRoles: false"))
    (folder / "members.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Members\nmetadata:\n  name: staff\nspec:\n"
        "  members:\n    gina: {role: Held}\n"
    )
    line = "Information: 3 custom roles are not declared: Held, Legacy Viewer, Scratch"

    text = portal.orgctl("drift", folder, portal="hq")
    assert text.returncode == 0, output_of(text)
    assert text.stdout.splitlines() == ["No drift. The portal matches the manifests.", line]

    report = portal.orgctl("drift", folder, "--format", "json", portal="hq")
    assert report.returncode == 0, output_of(report)
    document = json.loads(report.stdout)
    assert document["undeclaredRoles"] == ["Held", "Legacy Viewer", "Scratch"]
    assert document["changes"] == []

    markdown = portal.orgctl("drift", folder, "--format", "markdown", portal="hq")
    assert markdown.returncode == 0, output_of(markdown)
    assert f"\n{line}\n" in markdown.stdout, markdown.stdout

    planned = portal.orgctl("plan", folder, "--detailed-exitcode", portal="hq")
    assert planned.returncode == 0, output_of(planned)  # a plan leaves them alone
