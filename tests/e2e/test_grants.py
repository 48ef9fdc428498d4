"""Time-bound grants against `orgctl serve` whose clock runs two days ahead of this
machine's: the portal's clock decides when a grant ends, `--control` moves it past the
deadline. bob is org_user on the demo portal; examples/hq's copy here grants him
org_publisher until an hour after the portal's time."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import time
from pathlib import Path

import pytest

from .agent_process import Agent, agent_env, commit, edit, repository
from .harness import DEMO_STATE, EXAMPLES, Serve, World, output_of, plan_json
from .test_notify import Webhook

pytestmark = pytest.mark.e2e

REASON = "covers the publishing team in December"
GRANTED_BY_HAND = "portal:admin:deleteUsers"


def _stamp(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _ahead_of_this_machine() -> dt.datetime:
    """Two days ahead of this machine, to the second: only the portal's clock can say a
    grant ending within them has ended."""
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    return now + dt.timedelta(days=2)


def _world(serve: Serve, tmp_path: Path, start: dt.datetime) -> World:
    text = DEMO_STATE.read_text()
    assert "clock: 2026-11-01T00:00:00Z" in text
    state = tmp_path / "state.yaml"
    state.write_text(text.replace("clock: 2026-11-01T00:00:00Z", f"clock: {_stamp(start)}", 1))
    return serve(state)


def _members(grant: str) -> str:
    return f"""apiVersion: orgctl/v1
kind: Members
metadata:
  name: staff
spec:
  members:
    alice: {{level: 1, role: Field Analyst}}
    bob:
      role: org_user
      level: 2
      grants:
        - {grant}
    erin: {{level: 2}}
"""


def _hq(world: World, grant: str, folder: Path | None = None) -> Path:
    folder = folder or world.workdir / "hq"
    shutil.copytree(EXAMPLES / "hq", folder, dirs_exist_ok=True)
    (folder / "members.yaml").write_text(_members(grant))
    return folder


def _publisher_until(until: dt.datetime) -> str:
    return f'{{role: org_publisher, until: "{_stamp(until)}", reason: {REASON}}}'


def _bob(world: World) -> str:
    return str(world.api("hq").members()["bob"]["role"])


@pytest.fixture
def ahead(serve: Serve, tmp_path: Path) -> tuple[World, dt.datetime]:
    start = _ahead_of_this_machine()
    return _world(serve, tmp_path, start), start


def test_a_grant_holds_until_the_portals_clock_passes_it_then_apply_revokes_it(
    ahead: tuple[World, dt.datetime],
) -> None:
    world, start = ahead
    folder = _hq(world, _publisher_until(start + dt.timedelta(hours=1)))
    applied = world.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert _bob(world) == "org_publisher"
    planned = world.orgctl("plan", folder, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    assert plan["changes"] == [], plan["changes"]
    # Judged on the portal's clock, ahead of this machine's; the plan depends on the grant.
    assert plan["evaluationTime"] == _stamp(start)
    assert [(g["address"], g["grants"], g["reason"]) for g in plan["grantDeadlines"]] == [
        ("Member/bob", "role org_publisher", REASON)
    ]
    # what-if starts from the manifests' state now: bob publishes, and would lose that.
    what_if = world.orgctl(
        "what-if", folder, "--set-role", "bob=org_user", "--format", "json", portal="hq"
    )
    assert what_if.returncode == 0, output_of(what_if)
    [bob] = [m for m in json.loads(what_if.stdout)["members"] if m["username"] == "bob"]
    assert "portal:publisher:publishFeatures" in bob["lost"], bob
    # adopt would write what the grant gives as bob's fallback: refused, nothing written.
    members = (folder / "members.yaml").read_text()
    adopted = world.orgctl("adopt", "Member/bob", folder, portal="hq")
    assert adopted.returncode == 1, output_of(adopted)
    assert "time-bound grants" in adopted.stderr, output_of(adopted)
    assert (folder / "members.yaml").read_text() == members
    world.advance_clock(2)  # past `until` on the portal, still before it on this machine
    revoked = world.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert revoked.returncode == 0, output_of(revoked)
    assert _bob(world) == "org_user"


def test_a_saved_plan_that_crosses_an_expiry_is_refused_as_stale(
    ahead: tuple[World, dt.datetime],
) -> None:
    world, start = ahead
    folder = _hq(world, _publisher_until(start + dt.timedelta(hours=1)))
    saved = world.workdir / "plan.json"
    planned = world.orgctl("plan", folder, "-o", saved, portal="hq")
    assert planned.returncode == 0, output_of(planned)
    world.advance_clock(2)
    before = world.api("hq").snapshot()
    applied = world.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert applied.returncode == 1, output_of(applied)
    said = output_of(applied)
    assert "stale plan" in said and "Member/bob" in said and REASON in said, said
    assert world.api("hq").snapshot() == before


def test_a_preview_at_a_later_time_is_refused_by_apply(
    ahead: tuple[World, dt.datetime],
) -> None:
    world, start = ahead
    folder = _hq(world, _publisher_until(start + dt.timedelta(hours=1)))
    later = _stamp(start + dt.timedelta(days=1))
    saved = world.workdir / "preview.json"
    planned = world.orgctl("plan", folder, "--at", later, "-o", saved, portal="hq")
    assert planned.returncode == 0, output_of(planned)
    plan = json.loads(saved.read_text())
    assert (plan["evaluationTime"], plan["preview"]) == (later, True)
    # At that time the grant has ended: bob stays org_user, no call for him.
    assert "Member/bob" not in {change["address"] for change in plan["changes"]}
    applied = world.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert applied.returncode == 1, output_of(applied)
    assert "--at" in output_of(applied) and "preview" in output_of(applied)


def test_drift_puts_an_overdue_revocation_first_and_access_names_it(
    ahead: tuple[World, dt.datetime],
) -> None:
    world, start = ahead
    folder = _hq(world, _publisher_until(start + dt.timedelta(hours=1)))
    applied = world.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    expiring = world.orgctl("access", folder, "--format", "json", portal="hq")
    kinds = [(f["kind"], f["subject"]) for f in json.loads(expiring.stdout)["findings"]]
    assert ("grant-expiring", "Member/bob") in kinds, kinds
    api = world.api("hq")
    analyst = api.roles()["Analyst"]["privileges"]
    api.set_privileges("Analyst", [*analyst, GRANTED_BY_HAND])  # riskiest drift so far
    world.advance_clock(2)
    drift = world.orgctl("drift", folder, "--format", "json", portal="hq")
    assert drift.returncode == 2, output_of(drift)
    changes = plan_json(drift)["changes"]
    assert [c["address"] for c in changes] == ["Member/bob", "Role/Analyst"], changes
    assert changes[0]["overdueRevocation"]["reason"] == REASON
    assert "administrative" in changes[1]
    access = world.orgctl("access", folder, "--format", "json", portal="hq")
    kinds = [(f["kind"], f["subject"]) for f in json.loads(access.stdout)["findings"]]
    assert ("grant-overdue", "Member/bob") in kinds, kinds


def test_plan_names_the_grants_expiring_within_the_window(
    ahead: tuple[World, dt.datetime],
) -> None:
    world, start = ahead
    folder = _hq(world, _publisher_until(start + dt.timedelta(days=3)))
    default = world.orgctl("plan", folder, portal="hq")
    assert default.returncode == 0, output_of(default)
    assert "Grants expiring soon" in default.stdout and REASON in default.stdout
    narrow = world.orgctl("plan", folder, "--expiring-within", "2d", portal="hq")
    assert narrow.returncode == 0, output_of(narrow)
    assert "Grants expiring soon" not in narrow.stdout
    page = world.orgctl("plan", folder, "--format", "html", portal="hq")
    assert "Grants expiring soon" in page.stdout and REASON in page.stdout


TEMPORARY = "portal:user:createGroup"


def test_temporary_privileges_of_a_role_end_on_time(ahead: tuple[World, dt.datetime]) -> None:
    world, start = ahead
    folder = _hq(world, _publisher_until(start + dt.timedelta(days=30)))
    roles = folder / "roles.yaml"
    until = _stamp(start + dt.timedelta(hours=1))
    edit(
        roles,
        "    - portal:user:shareToGroup\n",
        "    - portal:user:shareToGroup\n  temporaryPrivileges:\n"
        f'    - {{privileges: [{TEMPORARY}], until: "{until}", reason: {REASON}}}\n',
    )
    applied = world.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert TEMPORARY in world.api("hq").roles()["Analyst"]["privileges"]
    world.advance_clock(2)
    drift = world.orgctl("drift", folder, "--format", "json", portal="hq")
    assert drift.returncode == 2, output_of(drift)
    [change] = plan_json(drift)["changes"]
    assert change["address"] == "Role/Analyst", change
    assert change["overdueRevocation"]["grants"] == f"privileges {TEMPORARY}"
    revoked = world.orgctl("apply", folder, "--auto-approve", portal="hq")
    assert revoked.returncode == 0, output_of(revoked)
    assert TEMPORARY not in world.api("hq").roles()["Analyst"]["privileges"]


ADMIN_GRANTS_30_DAYS = """---
apiVersion: orgctl/v1
kind: Policy
metadata:
  name: admin-grants-30-days
spec:
  enforcement: mandatory
  subject: member
  rule: 'member.grants.all(g, g.role != "org_admin" || g.until - now <= duration("720h"))'
  message: "{username}: an administrative grant lasts at most 30 days"
"""


@pytest.mark.parametrize(("days", "stopped"), [(90, True), (20, False)])
def test_a_policy_limits_administrative_grants_to_30_days(
    ahead: tuple[World, dt.datetime], days: int, stopped: bool
) -> None:
    world, start = ahead
    until = _stamp(start + dt.timedelta(days=days))
    folder = _hq(world, f'{{role: org_admin, until: "{until}", reason: {REASON}}}')
    (folder / "policies.yaml").write_text(ADMIN_GRANTS_30_DAYS)
    planned = world.orgctl("plan", folder, "--format", "json", portal="hq")
    errors = [e for e in plan_json(planned)["errors"] if "admin-grants-30-days" in e["message"]]
    if stopped:
        assert planned.returncode == 1, output_of(planned)
        assert [e["address"] for e in errors] == ["Member/bob"], errors
    else:
        assert planned.returncode == 0, output_of(planned)
        assert errors == []


def test_the_agent_revokes_a_grant_on_time_and_says_so(
    ahead: tuple[World, dt.datetime], tmp_path: Path
) -> None:
    world, start = ahead
    repo = repository(tmp_path)
    folder = repo / "portals" / "hq"
    # Ends a few seconds after the portal's time: the agent's interval (an hour) never
    # comes; only a timer at the grant's end can revoke it within the test.
    _hq(world, _publisher_until(start + dt.timedelta(seconds=4)), folder)
    edit(folder / "portal.yaml", "  safety:\n", "  agent: {selfHeal: true}\n  safety:\n")
    commit(repo, "bob publishes for a few seconds")
    hook = Webhook()
    env = agent_env(world, ORGCTL_NOTIFY_URL=hook.url)
    args = ["--source", str(repo), "--path", "portals", "--allow-apply", "--interval", "1h"]
    agent = Agent([*args, "--jitter", "0", "--deadline", "30s"], env, tmp_path)
    try:
        agent.wait_state("hq", "Synced")
        assert _bob(world) == "org_publisher"
        world.advance_clock(5 / 3600)  # the portal's clock passes the deadline
        moved = time.monotonic()
        agent.wait_for("bob's grant revoked", lambda: _bob(world) == "org_user")
        assert time.monotonic() - moved < 60
        agent.wait_for("the notification", lambda: len(hook.posts) >= 2)
    finally:
        assert agent.close() == 0
        hook.close()
    told = hook.posts[-1]["text"]
    assert "grant expired and revoked: Member/bob: role org_publisher" in told, hook.posts
    assert REASON in told
