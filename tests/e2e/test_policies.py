"""Policies judged on effective access, against `orgctl serve`: examples/hq gives the
Analyst role `portal:user:shareToGroup`, which its live holders (dave, erin) lack."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .harness import EXAMPLES, World, output_of, plan_json

pytestmark = pytest.mark.e2e

SHARE = "portal:user:shareToGroup"


def _policy(name: str, enforcement: str, subject: str, rule: str, extra: str = "") -> str:
    return f"""---
apiVersion: orgctl/v1
kind: Policy
metadata:
  name: {name}
spec:
  enforcement: {enforcement}
  subject: {subject}
  rule: '{rule}'
  message: {name} is broken
{extra}"""


def _hq_with(world: World, *policies: str) -> Path:
    folder = world.workdir / "hq"
    shutil.copytree(EXAMPLES / "hq", folder, dirs_exist_ok=True)
    (folder / "policies.yaml").write_text("".join(policies))
    return folder


NO_SHARING_ANALYSTS = (
    'member.role != "Analyst" || !("portal:user:shareToGroup" in member.privileges)'
)


def test_a_mandatory_policy_stops_the_plan_that_introduces_a_violation_at_each_holder(
    demo: World,
) -> None:
    folder = _hq_with(
        demo, _policy("analysts-share-nothing", "mandatory", "member", NO_SHARING_ANALYSTS)
    )
    planned = demo.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 1, output_of(planned)
    errors = [e for e in plan_json(planned)["errors"] if "analysts-share-nothing" in e["message"]]
    # The role edit is the cause; the violation is reported at each member it reaches.
    assert sorted(e["address"] for e in errors) == ["Member/dave", "Member/erin"], errors
    caused = {e["address"]: e["message"] for e in errors}
    # dave's own entry is unchanged: his role's edit is named. erin's level goes to 2
    # (enabling what level 1 disabled): her own change is the cause.
    assert "caused by Role/Analyst" in caused["Member/dave"], errors
    assert "caused by Member/erin" in caused["Member/erin"], errors
    # Plan JSON `policies` lists the same verdicts, each with its status and cause.
    assert plan_json(planned)["policies"] == [
        {
            "policy": "analysts-share-nothing",
            "enforcement": "mandatory",
            "subject": subject,
            "message": "analysts-share-nothing is broken",
            "cause": cause,
            "status": "introduced",
        }
        for subject, cause in (("Member/dave", "Role/Analyst"), ("Member/erin", "Member/erin"))
    ]
    api = demo.api("hq")
    before = api.snapshot()
    applied = demo.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 1, output_of(applied)
    assert "analysts-share-nothing" in applied.stdout + applied.stderr
    assert api.snapshot() == before
    assert SHARE not in api.roles()["Analyst"]["privileges"]


def test_an_advisory_policy_warns_and_the_apply_goes_through(demo: World) -> None:
    folder = _hq_with(
        demo, _policy("analysts-share-nothing", "advisory", "member", NO_SHARING_ANALYSTS)
    )
    planned = demo.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    assert not plan["errors"], plan["errors"]
    warned = [w["address"] for w in plan["warnings"] if "analysts-share-nothing" in w["message"]]
    assert sorted(warned) == ["Member/dave", "Member/erin"], plan["warnings"]
    applied = demo.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert SHARE in demo.api("hq").roles()["Analyst"]["privileges"]


def test_a_violation_already_on_the_live_portal_warns_without_blocking(demo: World) -> None:
    folder = _hq_with(demo, _policy("no-dave", "mandatory", "member", 'member.username != "dave"'))
    planned = demo.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    assert not plan["errors"], plan["errors"]
    warnings = [w for w in plan["warnings"] if "no-dave" in w["message"]]
    assert [w["address"] for w in warnings] == ["Member/dave"], plan["warnings"]
    assert "already violated on the live portal" in warnings[0]["message"]
    [verdict] = plan["policies"]
    assert (verdict["subject"], verdict["status"], verdict["cause"]) == (
        "Member/dave",
        "existing",
        None,
    )
    # Nor does it block the apply of the unrelated changes.
    applied = demo.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert SHARE in demo.api("hq").roles()["Analyst"]["privileges"]


@pytest.mark.parametrize(
    ("until", "blocked"),
    [("2020-01-01", ["Member/dave", "Member/erin"]), ("2999-01-01", ["Member/erin"])],
)
def test_an_exception_stops_applying_once_its_until_is_past(
    demo: World, until: str, blocked: list[str]
) -> None:
    exception = f"""  exceptions:
    - {{subject: Member/dave, reason: pilot of group sharing, until: "{until}"}}
"""
    policy = _policy(
        "analysts-share-nothing", "mandatory", "member", NO_SHARING_ANALYSTS, exception
    )
    planned = demo.orgctl("plan", _hq_with(demo, policy), "--format", "json", portal="hq")
    assert planned.returncode == 1, output_of(planned)
    errors = plan_json(planned)["errors"]
    assert (
        sorted(e["address"] for e in errors if "analysts-share-nothing" in e["message"]) == blocked
    )


# Separation of duties: nobody both creates content and shares it with groups.
CREATES_OR_SHARES = (
    '!("portal:user:createItem" in member.privileges && "portal:user:shareToGroup" in'
    " member.privileges)"
)


def test_a_role_edit_breaking_separation_of_duties_is_reported_at_the_holder(
    demo: World,
) -> None:
    # dave creates content through Analyst on the live portal; the manifests let Analyst
    # share with groups too. dave's own entry is untouched: the role edit makes him
    # break the rule, and the violation is his, naming the role's change.
    folder = _hq_with(demo, _policy("create-or-share", "mandatory", "member", CREATES_OR_SHARES))
    planned = demo.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 1, output_of(planned)
    plan = plan_json(planned)
    verdicts = {v["subject"]: v for v in plan["policies"]}
    assert "Role/Analyst" not in verdicts
    assert (verdicts["Member/dave"]["status"], verdicts["Member/dave"]["cause"]) == (
        "introduced",
        "Role/Analyst",
    )
    [error] = [
        e["message"]
        for e in plan["errors"]
        if e["address"] == "Member/dave" and "create-or-share" in e["message"]
    ]
    assert "caused by Role/Analyst" in error, error


def test_a_role_policy_sees_the_holders_after_the_plan(demo: World) -> None:
    rule = 'role.name != "Analyst" || size(role.holders) <= 1'
    planned = demo.orgctl(
        "plan",
        _hq_with(demo, _policy("few-analysts", "advisory", "role", rule)),
        "--format",
        "json",
        portal="hq",
    )
    assert planned.returncode == 0, output_of(planned)
    warned = [w for w in plan_json(planned)["warnings"] if "few-analysts" in w["message"]]
    assert [w["address"] for w in warned] == ["Role/Analyst"], warned
    assert "already violated" in warned[0]["message"]


# --- drift and access: the policies on the live state alone ---------------------------------


def test_drift_judges_policies_on_the_live_state_alone_not_against_its_plan(demo: World) -> None:
    # Against the plan, giving the analysts group sharing would be introduced; on the
    # live portal no analyst shares: drift reports the drift, and no policy violation.
    folder = _hq_with(
        demo, _policy("analysts-share-nothing", "mandatory", "member", NO_SHARING_ANALYSTS)
    )
    drift = demo.orgctl("drift", folder, "--format", "json", "--fail-on", "policy", portal="hq")
    assert drift.returncode == 2, output_of(drift)
    report = plan_json(drift)
    assert not report["errors"], report["errors"]
    assert not [w for w in report["warnings"] if "analysts-share-nothing" in w["message"]]
    assert report["policies"] == []
    assert "Finding (policy" not in drift.stderr


def test_drift_reports_a_live_violation_as_a_finding_and_fails_only_when_asked(
    demo: World,
) -> None:
    applied = demo.orgctl("apply", _hq_with(demo), "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    folder = _hq_with(demo, _policy("no-dave", "mandatory", "member", 'member.username != "dave"'))
    drift = demo.orgctl("drift", folder, "--format", "json", portal="hq")
    assert drift.returncode == 0, output_of(drift)
    report = plan_json(drift)
    assert not [w for w in report["warnings"] if "no-dave" in w["message"]], report["warnings"]
    assert report["policies"] == [
        {
            "policy": "no-dave",
            "enforcement": "mandatory",
            "subject": "Member/dave",
            "message": "no-dave is broken",
            "cause": None,
            "status": "existing",
        }
    ]
    assert "Finding (policy): Member/dave: policy no-dave (mandatory)" in drift.stderr
    gated = demo.orgctl("drift", folder, "--fail-on", "policy", portal="hq")
    assert gated.returncode == 2, output_of(gated)
    assert "Finding (policy, --fail-on): Member/dave: policy no-dave" in gated.stderr
    other = demo.orgctl("drift", folder, "--fail-on", "role-unheld", portal="hq")
    assert "Finding (policy): Member/dave" in other.stderr


def test_access_reports_policy_violations_as_findings_of_kind_policy(demo: World) -> None:
    rule = 'role.name != "Analyst" || size(role.holders) <= 1'
    folder = _hq_with(
        demo,
        _policy("no-dave", "advisory", "member", 'member.username != "dave"'),
        _policy("few-analysts", "mandatory", "role", rule),
    )
    report = demo.orgctl("access", folder, "--format", "json", portal="hq")
    assert report.returncode == 0, output_of(report)
    found = [f for f in json.loads(report.stdout)["findings"] if f["kind"] == "policy"]
    assert [(f["subject"], f["member"], f["role"], f["severity"]) for f in found] == [
        ("Member/dave", "dave", None, "warning"),
        ("Role/Analyst", None, "Analyst", "warning"),
    ]
    assert found[0]["message"] == "policy no-dave (advisory): no-dave is broken"
    # A privilege filter keeps them: a policy is about who may do what.
    filtered = demo.orgctl("access", folder, "--privilege", "x:*", "--format", "json", portal="hq")
    kinds = [f["kind"] for f in json.loads(filtered.stdout)["findings"]]
    assert kinds == ["policy", "policy"], output_of(filtered)
    gated = demo.orgctl("access", folder, "--fail-on", "policy", portal="hq")
    assert gated.returncode == 2, output_of(gated)
    assert "few-analysts" in gated.stdout


# --- the built-in policies ------------------------------------------------------------------

LEFT_WITHOUT_ADMIN = (
    "this plan leaves the portal without a default administrator: it moves every"
    " org_admin ({}) to another role, and the portal refuses to move the last"
    " one (ORG_1090); keep at least one"
)


def _every_admin_demoted(world: World, *admins: str) -> Path:
    folder = world.workdir / "demoted"
    shutil.copytree(EXAMPLES / "hq", folder, dirs_exist_ok=True)
    members = "".join(f"    {name}: {{role: org_user}}\n" for name in admins)
    (folder / "demoted.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Members\nmetadata:\n  name: demoted\nspec:\n"
        f"  members:\n{members}"
    )
    return folder


def test_the_default_administrator_check_is_a_built_in_mandatory_policy(demo: World) -> None:
    folder = _every_admin_demoted(demo, "admin")
    planned = demo.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 1, output_of(planned)
    plan = plan_json(planned)
    # As before: one error at the Portal document, word for word.
    assert [e["message"] for e in plan["errors"] if e["address"] == "Portal"] == [
        LEFT_WITHOUT_ADMIN.format("admin")
    ]
    # Now also a policy's verdict, judged in CEL like a folder's own.
    assert plan["policies"] == [
        {
            "policy": "default-administrator",
            "enforcement": "mandatory",
            "subject": "Portal/hq",
            "message": LEFT_WITHOUT_ADMIN.format("admin"),
            "cause": None,
            "status": "introduced",
        }
    ]
    api = demo.api("hq")
    before = api.snapshot()
    applied = demo.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 1, output_of(applied)
    assert "ORG_1090" in applied.stdout + applied.stderr
    assert api.snapshot() == before
    # A plan that leaves a default administrator is judged by it too, and passes.
    kept = demo.orgctl("plan", _hq_with(demo), "--format", "json", portal="hq")
    assert kept.returncode == 0, output_of(kept)
    assert "policies" not in plan_json(kept)


# --- what-if ----------------------------------------------------------------------------------


def test_what_if_lists_who_gains_and_loses_and_the_verdicts_that_change(demo: World) -> None:
    folder = _hq_with(
        demo, _policy("analysts-share-nothing", "mandatory", "member", NO_SHARING_ANALYSTS)
    )
    api = demo.api("hq")
    before = api.snapshot()
    removed = demo.orgctl(
        "what-if", folder, "--remove-privilege", f"Analyst={SHARE}", "--format", "json", portal="hq"
    )
    assert removed.returncode == 0, output_of(removed)
    report = json.loads(removed.stdout)
    # The manifests give the analysts group sharing; taking it back loses it for them,
    # and cures the policy the manifests alone would break.
    assert [(m["username"], m["gained"], m["lost"]) for m in report["members"]] == [
        ("dave", [], [SHARE]),
        ("erin", [], [SHARE]),
    ]
    assert all("lastLogin" in m for m in report["members"])
    assert {(v["policy"], v["subject"], v["status"]) for v in report["policies"]} == {
        ("analysts-share-nothing", "Member/dave", "cured"),
        ("analysts-share-nothing", "Member/erin", "cured"),
    }
    promoted = demo.orgctl(
        "what-if", folder, "--set-role", "dave=org_admin", "--fail-on-new-access", portal="hq"
    )
    assert promoted.returncode == 2, output_of(promoted)
    assert "dave (org_admin, last sign-in" in promoted.stdout
    assert "gains " in promoted.stdout and "portal:admin:" in promoted.stdout
    quiet = demo.orgctl("what-if", folder, "--fail-on-new-access", portal="hq")
    assert quiet.returncode == 0, output_of(quiet)
    assert "Nobody gains or loses an effective privilege." in quiet.stdout
    markdown = demo.orgctl(
        "what-if", folder, "--set-level", "dave=1", "--format", "markdown", portal="hq"
    )
    assert markdown.returncode == 0, output_of(markdown)
    assert markdown.stdout.startswith("## What if: hq")
    assert "loses `" in markdown.stdout
    assert (
        demo.orgctl("what-if", folder, "--set-role", "nobody=org_user", portal="hq").returncode == 1
    )
    assert api.snapshot() == before
