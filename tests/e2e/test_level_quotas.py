"""Level changes are predicted from what a real portal publishes (docs/rules.md §A): the
quotas from the Portal Administrator API's licenses resource, read by an account that
may; an account that may not read it plans on, told once that the quotas were not
checked. Which premium apps a level bars no read publishes: the portal refuses such a
change when it is sent, and the plan does not pretend to know."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import DEMO_STATE, MANIFESTS, STATES, Serve, output_of, plan_json

pytestmark = pytest.mark.e2e

# A member whose custom role may read the members (and so plan levels), not the licenses.
REVIEWER = {"username": "rita", "password": "rita-pass"}
RULES_ADMIN = "      - {username: admin, password: admin-pass, role: org_admin, level: 2}\n"
REVIEWER_LINES = (
    "      - {username: rita, password: rita-pass, role: Reviewer, level: 2}\n",
    "      - {id: r0000000000009, name: Reviewer, description: Reads for plans,\n"
    "         privileges: [portal:admin:viewUsers, portal:admin:viewItems]}\n",
)


def rules_with_reviewer(directory: Path) -> Path:
    text = (STATES / "rules.yaml").read_text()
    user, role = REVIEWER_LINES
    text = text.replace(RULES_ADMIN, RULES_ADMIN + user, 1).replace(
        "    roles:\n", "    roles:\n" + role, 1
    )
    state = directory / "rules.yaml"
    state.write_text(text)
    return state


def test_a_full_level_is_predicted_from_the_licenses_resource(serve: Serve) -> None:
    world = serve("rules")  # level 1: quota 1, erin holds it
    planned = world.orgctl("plan", MANIFESTS / "errors-quota", "--format", "json", portal="hq")
    assert planned.returncode == 1, output_of(planned)
    (error,) = plan_json(planned)["errors"]
    assert error["address"] == "Member/ivy" and "quota of 1" in error["message"], error
    portal = world.api("hq").get("portals/self")
    assert "levelQuotas" not in portal  # read where the vendor publishes it, not here


def test_an_account_that_may_not_read_the_licenses_is_told_the_quotas_were_not_checked(
    serve: Serve, tmp_path: Path
) -> None:
    world = serve(rules_with_reviewer(tmp_path))
    directory = MANIFESTS / "errors-quota"
    planned = world.orgctl("plan", directory, "--format", "json", portal="hq", **REVIEWER)
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    assert plan["errors"] == []
    notes = [w["message"] for w in plan["warnings"] if "quota" in w["message"]]
    assert notes == [
        "level quotas not checked: rita may not read portaladmin/system/licenses (You do not"
        " have permissions to access this resource or perform this operation.; You do not"
        " have permissions to access this resource: only an organization administrator may.);"
        " reading it needs an organization administrator; the portal checks each level"
        " change when it is sent"
    ], plan["warnings"]


def test_a_premium_app_a_level_bars_is_left_to_the_portal(serve: Serve) -> None:
    world = serve(DEMO_STATE)  # dave holds appstudio, which level 1 bars; it has room
    directory = MANIFESTS / "errors-license"
    planned = world.orgctl("plan", directory, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    applied = world.orgctl("apply", directory, "--auto-approve", portal="hq")
    assert applied.returncode == 1, output_of(applied)
    assert "appstudio" in applied.stdout + applied.stderr, output_of(applied)
    assert world.api("hq").get("community/users/dave")["level"] == "2"
