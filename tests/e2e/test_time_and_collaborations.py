"""What depends on the service's clock, and collaborations leaving or deleted: task-run
retention ages runs by the portal's time, a completed schedule is not drift, a guest
leaves and a host deletes."""

from __future__ import annotations

import pytest

from .harness import EXAMPLES, MANIFESTS, PortalApi, World, output_of, plan_json

pytestmark = pytest.mark.e2e

FIELD = EXAMPLES / "field"


def run_ids(api: PortalApi, task: str) -> set[str]:
    runs = api.get(f"community/users/frank/tasks/{task}/runs", num=100)["runs"]
    return {r["runId"] for r in runs}


def test_retention_ages_runs_by_the_service_clock(demo: World) -> None:
    """Demo clock 2026-11-01; t1 has a run a day from 2026-10-01 to 2026-10-12;
    examples/field keeps the newest 10 and none older than 30 days."""
    applied = demo.orgctl("apply", FIELD, "--auto-approve", portal="field")
    assert applied.returncode == 0, output_of(applied)
    api = demo.api("field")
    assert run_ids(api, "t1") == {f"t1-run-{n:02}" for n in range(3, 13)}

    demo.advance_clock(60)  # 2026-11-03T12:00: runs of 10-03 and 10-04 are now over 30 days
    drift = demo.orgctl("drift", FIELD, "--format", "json", portal="field")
    assert drift.returncode == 2, output_of(drift)
    changes = plan_json(drift)["changes"]
    assert {(c["address"], c["action"]) for c in changes} == {
        ("TaskRun/frank/t1/t1-run-03", "delete"),
        ("TaskRun/frank/t1/t1-run-04", "delete"),
    }

    applied = demo.orgctl("apply", FIELD, "--auto-approve", portal="field")
    assert applied.returncode == 0, output_of(applied)
    assert run_ids(api, "t1") == {f"t1-run-{n:02}" for n in range(5, 13)}
    files = {r["resource"] for r in api.get("content/items/i1/resources")["resources"]}
    assert not files & {"t1-run-03.log", "t1-run-04.log"}, files


def test_completed_schedule_is_not_drift(demo: World) -> None:
    directory = MANIFESTS / "finite-schedule"
    applied = demo.orgctl("apply", directory, "--auto-approve", portal="field")
    assert applied.returncode == 0, output_of(applied)
    api = demo.api("field")
    schedule = f"portals/{api.portal_id}/collaborations/c1/workspaces/ws1/schedule"
    assert api.get(schedule)["repeatCount"] == 2

    demo.advance_clock(4 * 24)  # fired 11-02, re-triggered 11-03 and 11-04: complete
    assert api.get_unchecked(schedule)["error"]["code"] == 404
    for command in (["plan", "--detailed-exitcode"], ["drift"]):
        result = demo.orgctl(command[0], directory, *command[1:], portal="field")
        assert result.returncode == 0, output_of(result)


def test_guest_leaves_a_collaboration(demo: World) -> None:
    directory = MANIFESTS / "guest-leaves"
    planned = plan_json(demo.orgctl("plan", directory, "--format", "json", portal="field"))
    (call,) = planned["calls"]
    assert call["address"] == "Collaboration/c1" and call["url"].endswith("/removeParticipation")

    applied = demo.orgctl("apply", directory, "--auto-approve", portal="field")
    assert applied.returncode == 0, output_of(applied)
    field, hq = demo.api("field"), demo.api("hq")
    assert "c1" not in field.collaboration_state()
    participants = hq.get(f"portals/{hq.portal_id}/collaborations/c1/participants")
    assert field.portal_id not in {p["portalInfo"]["id"] for p in participants["participants"]}
    again = demo.orgctl("plan", directory, "--detailed-exitcode", portal="field")
    assert again.returncode == 0, output_of(again)


def test_host_deletes_a_collaboration_and_the_guest_drops_it_later(demo: World) -> None:
    directory = MANIFESTS / "host-deletes"
    planned = plan_json(demo.orgctl("plan", directory, "--format", "json", portal="hq"))
    (call,) = planned["calls"]
    assert call["address"] == "Collaboration/c1" and call["url"].endswith("/c1/delete")

    applied = demo.orgctl("apply", directory, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert "c1" not in demo.api("hq").collaboration_state()
    again = demo.orgctl("plan", directory, "--detailed-exitcode", portal="hq")
    assert again.returncode == 0, output_of(again)

    field = demo.api("field")
    demo.advance_clock(25)  # past the guest's next daily refresh
    assert "c1" not in field.collaboration_state()
    # The field office's manifests still describe c1: a plan error naming it, not a crash.
    gone = demo.orgctl("plan", FIELD, portal="field")
    assert gone.returncode == 1, output_of(gone)
    assert "Collaboration/c1" in gone.stdout + gone.stderr
    assert "Traceback" not in gone.stderr
