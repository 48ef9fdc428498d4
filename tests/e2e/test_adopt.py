"""`orgctl adopt`: changes made in the portal's own pages written back into the manifests,
in place: every other byte of the files stays as it was, and the result plans empty."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .harness import EXAMPLES, World, output_of

pytestmark = pytest.mark.e2e

NEW_ROLE = """---
apiVersion: orgctl/v1
kind: Role
metadata:
  name: Night Shift
spec:
  description: Added in the portal
  privileges:
    - portal:user:joinGroup
    - portal:user:viewOrgItems
"""


def converged_copy(world: World, example: str, tmp_path: Path) -> Path:
    folder = tmp_path / example
    shutil.copytree(EXAMPLES / example, folder)
    applied = world.orgctl("apply", folder, "--auto-approve", portal=example)
    assert applied.returncode == 0, output_of(applied)
    return folder


def texts(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(folder.glob("*.yaml"))}


def test_adopt_writes_only_the_adopted_values(demo: World, tmp_path: Path) -> None:
    folder = converged_copy(demo, "hq", tmp_path)
    before = texts(folder)
    api = demo.api("hq")
    privileges = [
        p for p in api.roles()["Analyst"]["privileges"] if p != "portal:user:shareToGroup"
    ]
    api.set_privileges("Analyst", privileges)
    api.post(f"portals/{api.portal_id}/updateuserrole", user="bob", role="org_user")
    created = api.post(
        f"portals/{api.portal_id}/createRole", name="Night Shift", description="Added in the portal"
    )
    role_id = created.get("id") or api.roles()["Night Shift"]["id"]
    api.post(
        f"portals/{api.portal_id}/roles/{role_id}/setPrivileges",
        privileges=json.dumps(
            {"privileges": ["portal:user:viewOrgItems", "portal:user:joinGroup"]}
        ),
    )
    drift = demo.orgctl("drift", folder, portal="hq")
    assert drift.returncode == 2, output_of(drift)

    adopted = demo.orgctl(
        "adopt", "Role/Analyst", "Member/bob", "Role/Night Shift", folder, portal="hq"
    )
    assert adopted.returncode == 0, output_of(adopted)
    assert "Role/Analyst: privileges written to" in adopted.stdout, output_of(adopted)
    assert "Role/Night Shift: added to" in adopted.stdout, output_of(adopted)

    after = texts(folder)
    assert after["roles.yaml"] == (
        before["roles.yaml"].replace("    - portal:user:shareToGroup\n", "", 1) + NEW_ROLE
    )
    # The value changes; its comment stays in its column.
    assert after["members.yaml"] == before["members.yaml"].replace(
        "bob: {role: org_publisher}     ", "bob: {role: org_user}          "
    )
    assert after["portal.yaml"] == before["portal.yaml"]
    assert after["collaborations.yaml"] == before["collaborations.yaml"]

    validated = demo.orgctl("validate", folder, portal="hq")
    assert validated.returncode == 0, output_of(validated)
    planned = demo.orgctl("plan", folder, "--detailed-exitcode", portal="hq")
    assert planned.returncode == 0, output_of(planned)


@pytest.mark.parametrize("example", ["hq", "field", "cloud"])
def test_adopting_a_converged_example_changes_no_byte(
    demo: World, tmp_path: Path, example: str
) -> None:
    folder = converged_copy(demo, example, tmp_path)
    before = texts(folder)
    adopted = demo.orgctl("adopt", "--drifted", folder, portal=example)
    assert adopted.returncode == 0, output_of(adopted)
    assert "No file changed" in adopted.stdout, output_of(adopted)
    assert texts(folder) == before


def test_adopt_drifted_accepts_every_drift(demo: World, tmp_path: Path) -> None:
    folder = converged_copy(demo, "hq", tmp_path)
    api = demo.api("hq")
    api.set_privileges("Field Analyst", ["portal:user:joinGroup"])
    adopted = demo.orgctl("adopt", "--drifted", folder, portal="hq")
    assert adopted.returncode == 0, output_of(adopted)
    assert "Role/Field Analyst: privileges written" in adopted.stdout, output_of(adopted)
    drift = demo.orgctl("drift", folder, portal="hq")
    assert drift.returncode == 0, output_of(drift)


def test_a_deleted_role_is_declared_absent(demo: World, tmp_path: Path) -> None:
    folder = converged_copy(demo, "hq", tmp_path)
    api = demo.api("hq")
    role_id = api.roles()["Analyst"]["id"]
    holders = [u for u, m in api.members().items() if m.get("roleId") == role_id]
    assert "erin" in holders
    for username in holders:
        api.post(f"portals/{api.portal_id}/updateuserrole", user=username, role="org_user")
    api.post(f"portals/{api.portal_id}/roles/{role_id}/delete")
    adopted = demo.orgctl("adopt", "Role/Analyst", folder, portal="hq")
    assert adopted.returncode == 0, output_of(adopted)
    roles = (folder / "roles.yaml").read_text()
    assert "  name: Analyst\nspec:\n  state: absent\n" in roles


def test_unknown_or_unadoptable_addresses_are_clear_errors(demo: World, tmp_path: Path) -> None:
    folder = converged_copy(demo, "hq", tmp_path)
    before = texts(folder)
    for address, message in [
        ("Role/Nobody", "neither declared in the manifests nor on the portal"),
        ("Member/zed", "not a member of the portal"),
        ("TaskRun/alice/t1/run1", "cannot be adopted"),
        ("Thing/x", "not an address orgctl adopt knows"),
    ]:
        result = demo.orgctl("adopt", address, folder, portal="hq")
        assert result.returncode == 1, output_of(result)
        assert message in result.stderr and "Traceback" not in result.stderr, output_of(result)
    assert texts(folder) == before


def test_a_workspace_schedule_is_adopted_in_place(demo: World, tmp_path: Path) -> None:
    folder = converged_copy(demo, "field", tmp_path)
    before = texts(folder)
    api = demo.api("field")
    api.post(
        f"portals/{api.portal_id}/collaborations/c1/workspaces/ws1/schedule/update",
        startTime=1796090400000,  # 2026-12-01T02:00:00Z, as declared
        interval=6,
        repeatCount=-1,
    )
    adopted = demo.orgctl("adopt", "Workspace/c1/ws1", folder, portal="field")
    assert adopted.returncode == 0, output_of(adopted)
    assert "Workspace/c1/ws1: schedule written" in adopted.stdout, output_of(adopted)
    assert texts(folder)["collaborations.yaml"] == before["collaborations.yaml"].replace(
        "interval: 12 ", "interval: 6  "
    )
    planned = demo.orgctl("plan", folder, "--detailed-exitcode", portal="field")
    assert planned.returncode == 0, output_of(planned)
