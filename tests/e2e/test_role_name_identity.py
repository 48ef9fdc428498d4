"""Role names compare as the portal compares them, regardless of case (ROLE_1001), against
`orgctl serve`: a role declared absent in another case than the live one is deleted, with
and without `spec.pruneRoles`, and plan, apply and drift agree afterwards."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .harness import DEMO_HQ_ROLES, MANIFESTS, Serve, World, demo_state_with, output_of, plan_json

pytestmark = pytest.mark.e2e

PRUNE = MANIFESTS / "prune-roles"
# An administrative role beside the demo's Analyst and Legacy Viewer.
ALPHA = (
    "      - {id: r00000000000a1, name: Alpha, description: admin by another name,"
    " privileges: [portal:admin:viewUsers]}\n"
)


@pytest.fixture
def portal(serve: Serve, tmp_path: Path) -> World:
    return serve(demo_state_with(tmp_path, {DEMO_HQ_ROLES: ALPHA}))


def _manifests(tmp_path: Path, absent_as: str, *, prune: bool) -> Path:
    """The prune-roles manifests with `absent_as` declared absent; without `prune`, the
    Portal leaves undeclared roles alone."""
    folder = tmp_path / "manifests"
    shutil.copytree(PRUNE, folder)
    portal_file = folder / "portal.yaml"
    text = portal_file.read_text().replace("maxDeletes: 2", "maxDeletes: 5")
    text = text.replace("[Analyst, kept by name, r00000000000k2]", "[Analyst]")
    if not prune:
        text = text.replace("pruneRoles: true", "pruneRoles: false")
    portal_file.write_text(text)
    (folder / "absent.yaml").write_text(
        f"apiVersion: orgctl/v1\nkind: Role\nmetadata:\n  name: {absent_as}\n"
        "spec:\n  state: absent\n"
    )
    return folder


def _deleted(folder: Path, portal: World) -> list[str]:
    planned = portal.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    return [c["address"] for c in plan_json(planned)["changes"] if c["action"] == "delete"]


@pytest.mark.parametrize(
    ("absent_as", "prune", "deleted"),
    [
        ("alpha", False, ["Role/alpha"]),
        ("ALPHA", True, ["Role/ALPHA", "Role/Legacy Viewer"]),
    ],
)
def test_a_role_declared_absent_in_another_case_is_deleted(
    portal: World, tmp_path: Path, absent_as: str, prune: bool, deleted: list[str]
) -> None:
    folder = _manifests(tmp_path, absent_as, prune=prune)
    assert _deleted(folder, portal) == deleted
    drifted = portal.orgctl("drift", folder, portal="hq")
    assert drifted.returncode == 2, output_of(drifted)
    assert f"Role/{absent_as}" in drifted.stdout

    applied = portal.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert "Alpha" not in portal.api("hq").roles()
    again = portal.orgctl("plan", folder, "--detailed-exitcode", portal="hq")
    assert again.returncode == 0, output_of(again)
    drift = portal.orgctl("drift", folder, portal="hq")
    assert drift.returncode == 0, output_of(drift)


def test_a_misspelt_kept_role_under_prune_stops_the_plan_that_would_delete_it(
    portal: World, tmp_path: Path
) -> None:
    folder = _manifests(tmp_path, "alpha", prune=True)
    portal_file = folder / "portal.yaml"
    text = portal_file.read_text().replace("keepRoles: [Analyst]", "keepRoles: [Legacy Veiwer]")
    portal_file.write_text(text)
    before = portal.api("hq").snapshot()

    planned = portal.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 1, output_of(planned)
    assert [e["message"] for e in plan_json(planned)["errors"]] == [
        "keepRoles: 'Legacy Veiwer' names no role on the portal or in the manifests"
        " (did you mean 'Legacy Viewer'?); correct it, or drop it from keepRoles"
    ]
    applied = portal.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 1, output_of(applied)
    assert portal.api("hq").snapshot() == before
