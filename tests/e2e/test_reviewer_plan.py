"""A reviewer plans with a read-only account, the administrator applies the saved plan
(README: a reviewer's read-only account): the plan predicts what `spec.applier` may do,
says what its account could not read, and `apply --plan` accepts it from another account
as long as the portal is as it was planned on, checking the applying account first."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .harness import (
    DEMO_HQ_ADMIN,
    DEMO_HQ_ROLES,
    EXAMPLES,
    Serve,
    World,
    demo_state_with,
    output_of,
    plan_json,
)

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"
REVIEWER = {"username": "rita", "password": "rita-pass"}  # view privileges only
NARROW = {"username": "vic", "password": "vic-pass"}  # viewUsers and viewItems only
MEMBER = {"username": "bob", "password": "bob-pass"}  # org_user: no view privilege
VIEWS = "portal:admin:viewUsers, portal:admin:viewItems, portal:admin:viewGroups"
SEEDED_ROLES = (
    "      - {id: r0000000000009, name: Reviewer, description: Reads for plans,\n"
    f"         privileges: [{VIEWS}, portal:admin:manageCollaborations]}}\n"
    "      - {id: r0000000000010, name: Narrow Reviewer, description: Reads members,\n"
    "         privileges: [portal:admin:viewUsers, portal:admin:viewItems]}\n"
)
SEEDED_USERS = (
    "      - {username: rita, password: rita-pass, role: Reviewer, level: 2}\n"
    "      - {username: vic, password: vic-pass, role: Narrow Reviewer, level: 2}\n"
)


@pytest.fixture
def hq(serve: Serve, tmp_path: Path) -> World:
    """The demo world with two reviewers on hq, whose custom roles hold view privileges."""
    return serve(
        demo_state_with(tmp_path, {DEMO_HQ_ROLES: SEEDED_ROLES, DEMO_HQ_ADMIN: SEEDED_USERS})
    )


def manifests(tmp_path: Path, applier: str | None, collaborations: bool = True) -> Path:
    """examples/hq, its Portal naming `applier`; without its Collaboration if asked."""
    folder = tmp_path / "hq"
    shutil.copytree(HQ, folder)
    if applier:
        portal = folder / "portal.yaml"
        text = portal.read_text()
        portal.write_text(text.replace("  safety:\n", f"  applier: {applier}\n  safety:\n", 1))
    if not collaborations:
        (folder / "collaborations.yaml").unlink()
    return folder


QUOTAS_NOT_CHECKED = "level quotas not checked: rita may not read portaladmin/system/licenses"


def test_a_reviewer_s_plan_is_applied_by_the_administrator_and_converges(
    hq: World, tmp_path: Path
) -> None:
    folder = manifests(tmp_path, applier="admin")
    saved = tmp_path / "plan.json"
    planned = hq.orgctl("plan", folder, "-o", saved, portal="hq", **REVIEWER)
    assert planned.returncode == 0, output_of(planned)
    plan = json.loads(saved.read_text())
    # The one thing a reviewer cannot check: the licenses are an administrator's read.
    assert (plan["errors"], [w["address"] for w in plan["warnings"]]) == ([], ["Portal"]), plan
    assert plan["warnings"][0]["message"].startswith(QUOTAS_NOT_CHECKED)
    operations = {call["operation"] for call in plan["calls"]}
    assert {"createRole", "setPrivileges", "updateUserLevel", "updateInfo"} <= operations

    before = hq.api("hq").snapshot()
    refused = hq.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq", **REVIEWER)
    assert refused.returncode == 1, output_of(refused)
    assert "refusing to apply the saved plan as rita; nothing was sent" in refused.stderr
    assert "createRole, setPrivileges need a default administrator (the built-in org_admin" in (
        refused.stderr
    )
    assert hq.api("hq").snapshot() == before

    applied = hq.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert "Converged" in applied.stdout
    again = hq.orgctl("plan", folder, "--detailed-exitcode", portal="hq", **REVIEWER)
    assert again.returncode == 0, output_of(again)


def test_without_an_applier_the_reviewer_is_warned_of_what_it_may_not_make(
    hq: World, tmp_path: Path
) -> None:
    planned = hq.orgctl("plan", HQ, "--format", "json", portal="hq", **REVIEWER)
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    assert plan["errors"] == []
    warned = {w["address"] for w in plan["warnings"]}
    assert {"Portal", "Role/Field Analyst", "Member/alice", "Workspace/c1/ws1"} <= warned
    said = [w["message"] for w in plan["warnings"]]
    quotas = [m for m in said if m.startswith(QUOTAS_NOT_CHECKED)]
    assert len(quotas) == 1, said  # said once
    assert all("the signed-in user rita" in m for m in said if m not in quotas)
    portal = [w["message"] for w in plan["warnings"] if w["address"] == "Portal"]
    assert any("spec.applier" in m for m in portal), portal


def test_what_a_narrower_account_cannot_read_is_said_by_resource(hq: World, tmp_path: Path) -> None:
    declared = hq.orgctl("plan", HQ, "--format", "json", portal="hq", **NARROW)
    assert declared.returncode == 1, output_of(declared)
    (error,) = plan_json(declared)["errors"]
    assert error["address"] == "Collaboration/c1"
    assert error["message"].startswith("cannot compare: vic may not read Collaboration/*")
    assert "portal:admin:manageCollaborations" in error["message"]

    folder = manifests(tmp_path, applier="admin", collaborations=False)
    quiet = hq.orgctl("plan", folder, "--format", "json", portal="hq", **NARROW)
    assert quiet.returncode == 0, output_of(quiet)
    plan = plan_json(quiet)
    assert plan["errors"] == []
    assert [w["address"] for w in plan["warnings"]] == ["Portal", "Collaboration/*"]
    assert plan["warnings"][0]["message"].startswith("level quotas not checked: vic may not")
    assert list(plan["notCompared"]) == ["Collaboration/*"]


def test_a_member_without_view_privileges_is_told_which_one_to_hold(hq: World) -> None:
    planned = hq.orgctl("plan", HQ, portal="hq", **MEMBER)
    assert planned.returncode == 1, output_of(planned)
    # orgctl names the privilege itself, as a real portal's refusal does not.
    needed = "reading it needs an organization administrator or a holder of portal:admin:viewUsers"
    assert needed in planned.stderr, output_of(planned)
    assert "Traceback" not in planned.stderr


FRANK_LINE = "      - {username: frank, password: frank-pass, role: org_user, level: 2}\n"
FIELD_REVIEWER = (
    "      - {username: rita, password: rita-pass, role: Reviewer, level: 2}\n"
    "    roles:\n"
    "      - {id: r0000000000209, name: Reviewer, description: Reads for plans,\n"
    f"         privileges: [{VIEWS}, portal:admin:manageCollaborations]}}\n"
)


def test_on_a_guest_the_reviewer_is_told_what_it_could_not_compare(
    serve: Serve, tmp_path: Path
) -> None:
    """examples/field declares organization webhooks, partial webhook settings and a
    task-run retention: each rests on a read only an administrator (or the webhook and
    task owners) may make."""
    field = serve(demo_state_with(tmp_path, {FRANK_LINE: FIELD_REVIEWER}))
    planned = field.orgctl(
        "plan", EXAMPLES / "field", "--format", "json", portal="field", **REVIEWER
    )
    assert planned.returncode == 1, output_of(planned)
    plan = plan_json(planned)
    errors = {e["address"]: e["message"] for e in plan["errors"]}
    assert set(errors) == {"OrganizationWebhook/*", "TaskRun/frank/*", "WebhookSettings"}, errors
    assert "portal:admin:manageWebhooks" in errors["OrganizationWebhook/*"]
    assert "would reset undeclared fields" in errors["WebhookSettings"]
    assert set(plan["notCompared"]) == set(errors)
    assert not [c for c in plan["calls"] if c["address"] in errors]
