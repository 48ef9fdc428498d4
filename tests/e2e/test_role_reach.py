"""The blast radius of a role's privileges in the plan (README: plan output, plan JSON):
against the demo state, Analyst is held by dave (level 2) and erin (level 1); a privilege
added to it names both, says that erin at level 1 does not get it, and a grant of an
administrative privilege is marked in text, Markdown and JSON. Applying the saved plan
bears the plan out: dave holds the privilege, erin does not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .harness import MANIFESTS, World, output_of, plan_json

pytestmark = pytest.mark.e2e

REACH = MANIFESTS / "role-reach"
NOTE = (
    "privileges: 1 added, 0 removed, 4 unchanged (held by 2 members; 1 at level 1 (erin),"
    " where portal:admin:viewUsers stays disabled)"
)
FLAG = "~ Role/Analyst  (grants administrative privileges: portal:admin:viewUsers)"


def _analyst(plan: dict[str, object]) -> dict[str, object]:
    changes = plan["changes"]
    assert isinstance(changes, list)
    return next(c for c in changes if c["address"] == "Role/Analyst")


def test_a_privilege_added_to_analyst_names_its_holders_in_every_format(demo: World) -> None:
    text = demo.orgctl("plan", REACH, portal="hq")
    assert text.returncode == 0, output_of(text)
    lines = [line.strip() for line in text.stdout.splitlines()]
    assert FLAG in lines, text.stdout
    assert NOTE in lines, text.stdout

    markdown = demo.orgctl("plan", REACH, "--format", "markdown", portal="hq")
    assert markdown.returncode == 0, output_of(markdown)
    assert f"@@ {FLAG} @@" in markdown.stdout, markdown.stdout
    assert f"      {NOTE}\n" in markdown.stdout, markdown.stdout

    planned = demo.orgctl("plan", REACH, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    change = _analyst(plan_json(planned))
    assert change["holders"] == {
        "total": 2,
        "byLevel": {"1": 1, "2": 1},
        "levelOneDisabled": {"privileges": ["portal:admin:viewUsers"], "members": ["erin"]},
    }
    assert change["grantsAdministrative"] == ["portal:admin:viewUsers"]
    again = demo.orgctl("plan", REACH, "--format", "json", portal="hq")
    assert again.stdout == planned.stdout  # deterministic, byte for byte


def test_the_saved_plan_with_holders_applies_and_erin_does_not_get_the_privilege(
    demo: World, tmp_path: Path
) -> None:
    saved = tmp_path / "plan.json"
    planned = demo.orgctl("plan", REACH, "-o", saved, portal="hq")
    assert planned.returncode == 0, output_of(planned)
    assert "holders" in _analyst(json.loads(saved.read_text()))

    applied = demo.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert NOTE in applied.stdout, applied.stdout  # the saved plan shown as planned
    api = demo.api("hq")
    assert "portal:admin:viewUsers" in api.get("community/users/dave")["privileges"]
    assert "portal:admin:viewUsers" not in api.get("community/users/erin")["privileges"]


def test_holders_are_counted_after_the_plan_s_own_member_changes(
    demo: World, tmp_path: Path
) -> None:
    """alice moves onto Analyst at level 1, erin to level 2, dave off it: the holders are
    those of the role once applied (alice and erin), not those of the role now."""
    folder = tmp_path / "reach"
    shutil.copytree(REACH, folder)
    (folder / "members.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Members\nmetadata:\n  name: staff\nspec:\n  members:\n"
        "    alice: {role: Analyst, level: 1}\n"
        "    dave: {role: org_publisher}\n"
        "    erin: {level: 2}\n"
    )
    planned = demo.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    assert _analyst(plan_json(planned))["holders"] == {
        "total": 2,
        "byLevel": {"1": 1, "2": 1},
        "levelOneDisabled": {"privileges": ["portal:admin:viewUsers"], "members": ["alice"]},
    }


def test_a_member_moved_onto_the_role_after_planning_makes_the_saved_plan_stale(
    demo: World, tmp_path: Path
) -> None:
    """The holders a saved plan states are those planned on: once a member moves onto the
    role by hand, the plan (and its count) is stale and nothing is sent."""
    saved = tmp_path / "plan.json"
    planned = demo.orgctl("plan", REACH, "-o", saved, portal="hq")
    assert planned.returncode == 0, output_of(planned)
    api = demo.api("hq")
    analyst = api.roles()["Analyst"]["id"]
    api.post(f"portals/{api.portal_id}/updateuserrole", user="alice", role=analyst)
    before = api.snapshot()

    refused = demo.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert refused.returncode == 1, output_of(refused)
    shown = refused.stdout + refused.stderr
    assert "stale plan" in shown and "changed: Member/*" in shown, shown
    assert api.snapshot() == before
