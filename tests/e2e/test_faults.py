"""Faults between orgctl and the portal, injected by a loopback proxy (README: journals): a
createRole sent without a reply is adopted, never duplicated; a 503 is retried; a
success that changed nothing is caught by the re-plan after sending; an apply killed
mid-call is told by its journal, and running it again converges."""

from __future__ import annotations

import json

import pytest

from orgctl_service.testing.proxy import FaultyProxy

from .harness import EXAMPLES, World, output_of

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"


def through(world: World, proxy: FaultyProxy) -> dict[str, str]:
    env = world.env("hq")
    env["ORGCTL_PORTAL_URL"] = f"{proxy.url}/hq/sharing/rest"
    env["ORGCTL_ADMIN_URL"] = f"{proxy.url}/hq/admin"
    return env


def assert_hq_converged(world: World) -> None:
    api = world.api("hq")
    roles = api.listing(f"portals/{api.portal_id}/roles", "roles")
    assert [r["name"] for r in roles].count("Field Analyst") == 1, roles
    field_analyst = api.roles()["Field Analyst"]
    assert len(field_analyst["privileges"]) == 5
    assert api.members()["alice"]["roleId"] == field_analyst["id"]
    again = world.orgctl("plan", HQ, "--detailed-exitcode", portal="hq")
    assert again.returncode == 0, output_of(again)


def test_create_role_without_reply_is_adopted_not_duplicated(demo: World) -> None:
    with FaultyProxy(demo.service.url, swallow=("/createRole",)) as proxy:
        env = through(demo, proxy)
        applied = demo.orgctl("apply", HQ, "--auto-approve", portal="hq", env=env)
        assert proxy.swallowed, "the proxy never saw createRole"
    assert applied.returncode == 0, output_of(applied)
    assert_hq_converged(demo)


def test_unavailable_portal_is_retried(demo: World) -> None:
    journal = demo.workdir / "journal.jsonl"
    with FaultyProxy(demo.service.url, unavailable=("/setPrivileges", "/updateUserLevel")) as proxy:
        env = through(demo, proxy)
        applied = demo.orgctl(
            "apply", HQ, "--auto-approve", "--journal", journal, portal="hq", env=env
        )
        assert len(proxy.refused) == 2, proxy.refused
    assert applied.returncode == 0, output_of(applied)
    assert_hq_converged(demo)
    events = [json.loads(line)["event"] for line in journal.read_text().splitlines()]
    assert "failed" not in events and "skipped" not in events, events


def test_apply_verifies_by_replanning_and_reports_what_is_left(demo: World) -> None:
    with FaultyProxy(demo.service.url, pretend=("/updateInfo",)) as proxy:
        env = through(demo, proxy)
        applied = demo.orgctl("apply", HQ, "--auto-approve", portal="hq", env=env)
        assert proxy.pretended, "the proxy never saw updateInfo"
    assert applied.returncode == 1, output_of(applied)
    assert "Traceback" not in applied.stderr
    # Everything else was sent and is done; the one call that changed nothing is named.
    table_and_verdict = applied.stdout + applied.stderr
    assert "Workspace/c1/ws1" in table_and_verdict[table_and_verdict.find("Apply:") :], output_of(
        applied
    )
    api = demo.api("hq")
    assert api.members()["alice"]["roleId"] == api.roles()["Field Analyst"]["id"]
    (workspace,) = api.collaboration_state()["c1"]["workspaces"]
    assert workspace["config"]["maxItemSizeInMB"] == 1024


def test_killed_apply_is_told_by_its_journal_and_a_rerun_converges(demo: World) -> None:
    journal = demo.workdir / "journal.jsonl"
    with FaultyProxy(demo.service.url, stall=("/updateInfo",)) as proxy:
        process = demo.spawn(
            "apply", HQ, "--auto-approve", "--journal", journal, env=through(demo, proxy)
        )
        try:
            assert proxy.stalled.wait(60), "apply never sent updateInfo"
        finally:
            process.kill()
            process.wait(30)

    entries = [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]
    # The call in flight when apply died has a start and no outcome.
    info = [e["event"] for e in entries if e["operation"] == "updateInfo"]
    assert info == ["start"], entries

    rerun = demo.orgctl("apply", HQ, "--auto-approve", portal="hq")
    assert rerun.returncode == 0, output_of(rerun)
    assert_hq_converged(demo)


def test_a_delete_whose_reply_was_lost_is_done_when_the_retry_finds_it_gone(demo: World) -> None:
    field = EXAMPLES / "field"
    env = demo.env("field")
    with FaultyProxy(demo.service.url, swallow=("/delete",)) as proxy:
        env["ORGCTL_PORTAL_URL"] = f"{proxy.url}/field/sharing/rest"
        env["ORGCTL_ADMIN_URL"] = f"{proxy.url}/field/admin"
        applied = demo.orgctl("apply", field, "--auto-approve", portal="field", env=env)
        assert proxy.swallowed, "the proxy never saw a delete"
    assert applied.returncode == 0, output_of(applied)
    assert "Apply: 7 done, 0 failed, 0 skipped." in applied.stdout, output_of(applied)
    again = demo.orgctl("plan", field, "--detailed-exitcode", portal="field")
    assert again.returncode == 0, output_of(again)
