"""A call that fails takes its dependents down with it, never independent calls; the
journal tells what happened; a second apply converges.

A refusal the plan could predict (the caller's capability) is a plan error and nothing is
sent (tests/e2e/test_capabilities.py), so the refusal here is one it could not: a proxy
answers createRole with 403, as when the caller's rights were taken away after planning."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from orgctl_service.testing.proxy import FaultyProxy

from .harness import MANIFESTS, Serve, one_call, output_of, plan_json

pytestmark = pytest.mark.e2e

PARTIAL = MANIFESTS / "partial"


def journal_entries(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def events_of(entries: list[dict[str, Any]], call: dict[str, Any]) -> list[str]:
    """The journal's events for one call of the plan, in the order they were written."""
    return [e["event"] for e in entries if e.get("seq") == call["seq"]]


def test_failed_create_role_skips_dependents_and_keeps_independent_calls(serve: Serve) -> None:
    world = serve("rules")
    planned = world.orgctl("plan", PARTIAL, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    create = one_call(plan, "Role/Surveyor", "/createRole")
    privileges = one_call(plan, "Role/Surveyor", "/setPrivileges")
    alice = one_call(plan, "Member/alice", "/updateuserrole")
    bob = one_call(plan, "Member/bob", "/updateuserrole")
    assert create["seq"] in alice["dependsOn"] and not bob["dependsOn"]

    journal = world.workdir / "journal.jsonl"
    with FaultyProxy(world.service.url, forbid=("/createRole",)) as proxy:
        env = world.env("hq")
        env["ORGCTL_PORTAL_URL"] = f"{proxy.url}/hq/sharing/rest"
        env["ORGCTL_ADMIN_URL"] = f"{proxy.url}/hq/admin"
        applied = world.orgctl(
            "apply", PARTIAL, "--auto-approve", "--journal", journal, portal="hq", env=env
        )
        assert proxy.forbidden, "the proxy never saw createRole"
    assert applied.returncode == 1, output_of(applied)
    shown = applied.stdout + applied.stderr
    assert "Traceback" not in shown
    for word in ("done", "failed", "skipped"):
        assert re.search(word, shown, re.IGNORECASE), output_of(applied)
    for address in ("Role/Surveyor", "Member/alice", "Member/bob"):
        assert address in shown, output_of(applied)
    assert "403" in shown, output_of(applied)

    api = world.api("hq")
    assert "Surveyor" not in api.roles()
    members = api.members()
    assert members["bob"]["role"] == "org_publisher"  # independent: done
    # depends on createRole: skipped, so alice keeps her built-in role (no roleId)
    assert (members["alice"]["role"], members["alice"].get("roleId")) == ("org_user", None)

    entries = journal_entries(journal.read_text())
    assert events_of(entries, create) == ["start", "failed"], entries
    assert events_of(entries, bob) == ["start", "done"], entries
    assert events_of(entries, privileges) == ["skipped"], entries  # never started
    assert events_of(entries, alice) == ["skipped"], entries

    converged = world.orgctl("apply", PARTIAL, "--auto-approve", portal="hq")
    assert converged.returncode == 0, output_of(converged)
    empty = world.orgctl("plan", PARTIAL, "--detailed-exitcode", portal="hq")
    assert empty.returncode == 0, output_of(empty)
    roles = api.roles()
    assert api.members()["alice"]["roleId"] == roles["Surveyor"]["id"]
    assert set(roles["Surveyor"]["privileges"]) == {
        "portal:user:joinGroup",
        "portal:user:viewOrgItems",
        "premium:user:geocode",
    }
