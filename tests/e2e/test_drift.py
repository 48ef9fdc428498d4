"""`orgctl drift`: 0 while the portal matches, 2 after a change by hand, in every format."""

from __future__ import annotations

import json
import re

import pytest

from .harness import EXAMPLES, World, output_of, plan_json

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"
DECLARED = {  # Role/Analyst in examples/hq/roles.yaml
    "portal:user:joinGroup",
    "portal:user:viewOrgItems",
    "portal:user:viewOrgUsers",
    "portal:user:createItem",
    "portal:user:shareToGroup",
}
BY_HAND = ["portal:user:joinGroup", "portal:user:viewOrgItems", "portal:user:createGroup"]


@pytest.fixture
def drifted(demo: World) -> World:
    """hq applied, checked clean, then Analyst's privileges changed through the API."""
    applied = demo.orgctl("apply", HQ, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    clean = demo.orgctl("drift", HQ, portal="hq")
    assert clean.returncode == 0, output_of(clean)
    demo.api("hq").set_privileges("Analyst", BY_HAND)
    return demo


def test_text_report_names_the_address_with_live_and_desired_values(drifted: World) -> None:
    result = drifted.orgctl("drift", HQ, portal="hq")
    assert result.returncode == 2, output_of(result)
    assert "Role/Analyst" in result.stdout
    assert "portal:user:createGroup" in result.stdout  # live only
    assert "portal:user:shareToGroup" in result.stdout  # desired only
    # Nothing else drifted.
    assert "Member/" not in result.stdout and "Role/Field Analyst" not in result.stdout


def test_json_report(drifted: World) -> None:
    result = drifted.orgctl("drift", HQ, "--format", "json", portal="hq")
    assert result.returncode == 2, output_of(result)
    report = plan_json(result)
    (change,) = report["changes"]
    assert change["address"] == "Role/Analyst"
    assert change["action"] == "update"
    assert set(change["before"]["privileges"]) == set(BY_HAND)
    assert set(change["after"]["privileges"]) == DECLARED


def test_markdown_report(drifted: World) -> None:
    result = drifted.orgctl("drift", HQ, "--format", "markdown", portal="hq")
    assert result.returncode == 2, output_of(result)
    assert "Role/Analyst" in result.stdout
    assert "portal:user:createGroup" in result.stdout
    assert "portal:user:shareToGroup" in result.stdout
    assert re.search(r"^(#|\|)", result.stdout, re.MULTILINE), result.stdout


def test_output_file_holds_the_report(drifted: World) -> None:
    markdown = drifted.workdir / "drift.md"
    result = drifted.orgctl("drift", HQ, "--format", "markdown", "-o", markdown, portal="hq")
    assert result.returncode == 2, output_of(result)
    assert "Role/Analyst" in markdown.read_text()

    report = drifted.workdir / "drift.json"
    result = drifted.orgctl("drift", HQ, "--format", "json", "-o", report, portal="hq")
    assert result.returncode == 2, output_of(result)
    assert [c["address"] for c in json.loads(report.read_text())["changes"]] == ["Role/Analyst"]


def test_change_to_an_unmanaged_field_is_not_drift(demo: World) -> None:
    """examples/hq declares erin's level only: her role is not managed."""
    applied = demo.orgctl("apply", HQ, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    api = demo.api("hq")
    api.post(f"portals/{api.portal_id}/updateuserrole", user="erin", role="org_publisher")
    assert api.members()["erin"]["role"] == "org_publisher"
    result = demo.orgctl("drift", HQ, portal="hq")
    assert result.returncode == 0, output_of(result)
