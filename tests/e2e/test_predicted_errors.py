"""Failures the service would answer, predicted at plan time as plan errors, and the
delete threshold. A plan with errors exits 1 and `apply` sends nothing."""

from __future__ import annotations

import re

import pytest

from .harness import MANIFESTS, Serve, World, output_of, plan_json

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("manifest", "address", "rule"),
    [
        # carol owns 3 items: the service would answer ORG_1084.
        ("errors-owner", "Member/carol", r"ORG_1084"),
        # Level 1 is full (erin) and nobody leaves it.
        ("errors-quota", "Member/ivy", r"(?i)quota"),
        # Analyst is still held by carol, dave, erin and ivy.
        ("errors-assigned-role", "Role/Analyst", r"(?i)assigned.*dave|dave.*assigned"),
        # Analyst exists live; role names are unique regardless of case (ROLE_1001).
        ("errors-role-name-case", "Role/analyst", r"'Analyst'.*ROLE_1001"),
    ],
    ids=["owns-items", "level-1-full", "role-still-assigned", "name-case"],
)
def test_predicted_failure_is_a_plan_error(
    serve: Serve, manifest: str, address: str, rule: str
) -> None:
    world = serve("rules")
    directory = MANIFESTS / manifest

    # An impossible plan is an error (1), even where changes alone would give 2.
    text = world.orgctl("plan", directory, "--detailed-exitcode", portal="hq")
    assert text.returncode == 1, output_of(text)
    shown = text.stdout + text.stderr
    assert address in shown and re.search(rule, shown), output_of(text)
    assert "Traceback" not in shown

    as_json = world.orgctl("plan", directory, "--format", "json", portal="hq")
    assert as_json.returncode == 1, output_of(as_json)
    errors = plan_json(as_json)["errors"]
    assert any(e["address"] == address and re.search(rule, e["message"]) for e in errors), errors

    api = world.api("hq")
    before = api.snapshot()
    applied = world.orgctl("apply", directory, "--auto-approve", portal="hq")
    assert applied.returncode == 1, output_of(applied)
    # Saved, the impossible plan cannot be applied either.
    saved = world.workdir / "plan.json"
    assert world.orgctl("plan", directory, "-o", saved, portal="hq").returncode == 1
    from_file = world.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert from_file.returncode == 1, output_of(from_file)
    assert address in from_file.stdout + from_file.stderr, output_of(from_file)
    assert api.snapshot() == before


def test_more_deletions_than_max_deletes_need_allow_deletes(serve: Serve) -> None:
    world = serve("rules")
    directory = MANIFESTS / "deletes"
    api = world.api("hq")
    before = api.snapshot()

    refused = world.orgctl("plan", directory, portal="hq")
    assert refused.returncode == 1, output_of(refused)
    assert "maxDeletes" in refused.stdout + refused.stderr
    not_applied = world.orgctl("apply", directory, "--auto-approve", portal="hq")
    assert not_applied.returncode == 1, output_of(not_applied)
    assert api.snapshot() == before

    allowed = world.orgctl("plan", directory, "--allow-deletes", "--format", "json", portal="hq")
    assert allowed.returncode == 0, output_of(allowed)
    plan = plan_json(allowed)
    assert not plan["errors"], plan["errors"]
    deleted = sorted(c["address"] for c in plan["changes"] if c["action"] == "delete")
    assert deleted == ["Role/Legacy Viewer", "Role/Old Role"]

    applied = world.orgctl("apply", directory, "--auto-approve", "--allow-deletes", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    roles = api.roles()
    assert "Legacy Viewer" not in roles and "Old Role" not in roles


def test_privileges_beyond_level_one_are_a_warning_and_then_disabled(demo: World) -> None:
    directory = MANIFESTS / "level-one-warning"
    planned = demo.orgctl("plan", directory, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    assert not plan["errors"], plan["errors"]
    assert any(
        w["address"] == "Member/alice" and "portal:user:createItem" in w["message"]
        for w in plan["warnings"]
    ), plan["warnings"]

    applied = demo.orgctl("apply", directory, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    alice = demo.api("hq").get("community/users/alice")
    assert alice["level"] == "1"
    assert "portal:user:joinGroup" in alice["privileges"]
    assert "portal:user:createItem" not in alice["privileges"]
