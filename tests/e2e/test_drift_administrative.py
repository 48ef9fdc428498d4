"""Drift ranks by what live state grants: an administrative privilege given to a role
behind orgctl's back is the first thing every format of the drift report says, marked,
with the members it reaches, in words read from the portal's side."""

from __future__ import annotations

import json
import re

import pytest

from .harness import EXAMPLES, World, output_of, plan_json

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"
GRANTED = "portal:admin:deleteUsers"
MARK = "granted on the portal, not in Git"


@pytest.fixture
def escalated(demo: World) -> World:
    """hq applied, then by hand: Analyst (held by dave and erin) given an administrative
    privilege, and bob moved off the role hq declares for him (an ordinary drift whose
    address sorts first)."""
    applied = demo.orgctl("apply", HQ, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    api = demo.api("hq")
    analyst = api.roles()["Analyst"]
    api.set_privileges("Analyst", [*analyst["privileges"], GRANTED])
    api.post(f"portals/{api.portal_id}/updateuserrole", user="bob", role="org_user")
    return demo


def test_json_puts_the_administrative_grant_first_with_its_privileges(escalated: World) -> None:
    result = escalated.orgctl("drift", HQ, "--format", "json", portal="hq")
    assert result.returncode == 2, output_of(result)
    changes = plan_json(result)["changes"]
    assert [c["address"] for c in changes] == ["Role/Analyst", "Member/bob"], changes
    first = changes[0]
    assert GRANTED in first["administrative"], first
    assert all(p.startswith("portal:admin:") for p in first["administrative"]), first
    assert first["administrativeHolders"] == ["dave", "erin"], first
    assert "administrative" not in changes[1]


def test_text_marks_it_first_from_the_portal_s_side(escalated: World) -> None:
    result = escalated.orgctl("drift", HQ, portal="hq")
    assert result.returncode == 2, output_of(result)
    out = result.stdout
    assert "1 administrative: privileges granted on the portal, not in Git." in out, out
    assert out.index("Role/Analyst") < out.index("Member/bob"), out
    line = next(line for line in out.splitlines() if "~ Role/Analyst" in line)
    assert "[administrative]" in line and GRANTED in line and MARK in line, line
    assert "held by dave, erin" in line, line
    # The portal granted the privilege: counted and named from the portal's side.
    assert re.search(r"privileges: [1-9]\d* on the portal only, 0 in Git only", out), out
    assert f'on the portal only: "{GRANTED}"' in out, out
    assert "added" not in out and "removed" not in out, out


def test_markdown_marks_it_first(escalated: World) -> None:
    result = escalated.orgctl("drift", HQ, "--format", "markdown", portal="hq")
    assert result.returncode == 2, output_of(result)
    out = result.stdout
    assert out.index("Role/Analyst") < out.index("Member/bob"), out
    assert re.search(rf"Role/Analyst.*\[administrative\].*{GRANTED}.*{MARK}", out), out
    assert "on the portal only" in out and " removed" not in out, out


def test_html_marks_it_first_as_the_riskiest(escalated: World) -> None:
    page = escalated.workdir / "drift.html"
    result = escalated.orgctl("drift", HQ, "--format", "html", "-o", page, portal="hq")
    assert result.returncode == 2, output_of(result)
    html = page.read_text()
    rows = html[html.index("Differences") :]
    assert rows.index("Role/Analyst") < rows.index("Member/bob"), rows
    analyst = rows[rows.index("Role/Analyst") - 200 : rows.index("Member/bob")]
    assert 'class="admin"' in analyst and "[administrative]" in analyst, analyst
    assert MARK in analyst and "held by dave, erin" in analyst, analyst


def test_a_saved_report_of_it_is_the_same_json(escalated: World) -> None:
    report = escalated.workdir / "drift.json"
    result = escalated.orgctl("drift", HQ, "--format", "json", "-o", report, portal="hq")
    assert result.returncode == 2, output_of(result)
    assert json.loads(report.read_text())["changes"][0]["administrative"], report.read_text()


def test_fail_on_gates_drift_on_the_access_findings_it_names(demo: World) -> None:
    """The finding kinds of `access --fail-on`, judged on the state drift read: a portal in
    sync still fails the check on a finding of a kind named, and only of those."""
    applied = demo.orgctl("apply", HQ, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    clean = demo.orgctl("drift", HQ, "--fail-on", "admin-disabled", portal="hq")
    assert clean.returncode == 0, output_of(clean)
    assert "Finding" not in clean.stderr, output_of(clean)

    gated = demo.orgctl("drift", HQ, "--fail-on", "default-admin", "--format", "json", portal="hq")
    assert gated.returncode == 2, output_of(gated)
    assert plan_json(gated)["changes"] == []  # stdout stays the report
    assert "Finding (default-admin, --fail-on): Member/admin:" in gated.stderr, output_of(gated)

    access = demo.orgctl("access", HQ, "--fail-on", "default-admin", portal="hq")
    assert access.returncode == 2, output_of(access)


def test_fail_on_names_a_finding_kind_access_knows(demo: World) -> None:
    result = demo.orgctl("drift", HQ, "--fail-on", "admin-stail", portal="hq")
    assert result.returncode != 0, output_of(result)
    assert "admin-stale" in result.stderr and "Traceback" not in result.stderr, output_of(result)
