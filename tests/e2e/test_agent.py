"""`orgctl agent` end to end: a Git repository made here, a real `orgctl serve`, the agent
as its own process on a port it chose, read through its endpoints."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from .agent_process import Agent, agent_env, commit, edit, git, repository
from .bulk import PORTAL, bulk_manifests, bulk_state
from .harness import EXAMPLES, Serve, World, output_of
from .test_drift import BY_HAND
from .test_notify import Webhook
from .test_signals import lease_kept

pytestmark = pytest.mark.e2e

FIELDS = {"name", "state", "revision", "lastReconcile", "nextReconcile", "lastError", "drifted"}
FIELDS |= {"shard"}
FAST = ["--interval", "1s", "--jitter", "0", "--deadline", "30s"]


def applied_repository(demo: World, tmp_path: Path) -> Path:
    """examples/hq in a Git repository, applied: the portal starts in sync."""
    repo = repository(tmp_path)
    done = demo.orgctl("apply", repo / "portals" / "hq", "--auto-approve", portal="hq")
    assert done.returncode == 0, output_of(done)
    return repo


def samples(agent: Agent) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics, parsed by the official parser."""
    text = agent.http.get("/metrics").text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_a_commit_changing_a_role_shows_out_of_sync(demo: World, tmp_path: Path) -> None:
    repo = applied_repository(demo, tmp_path)
    agent = Agent(["--source", str(repo), "--path", "portals", *FAST], agent_env(demo), tmp_path)
    try:
        first = git(repo, "rev-parse", "HEAD")
        agent.wait_state("hq", "Synced", first)
        assert samples(agent)[("orgctl_portal_in_sync", (("portal", "hq"),))] == 1
        edit(repo / "portals/hq/roles.yaml", "    - portal:user:viewOrgItems\n", "")
        second = commit(repo, "Field Analyst no longer views org items")
        shown = agent.wait_state("hq", "OutOfSync", second)
        assert shown["drifted"] >= 1 and shown["lastError"] is None
        assert set(shown) == FIELDS and shown["shard"] == 0
        assert shown["lastReconcile"].endswith("Z") and shown["revision"] == second
        metrics = samples(agent)
        assert metrics[("orgctl_portal_in_sync", (("portal", "hq"),))] == 0
        assert metrics[("orgctl_portal_drifted_resources", (("kind", "Role"), ("portal", "hq")))]
        assert metrics[("orgctl_source_revision_info", (("revision", second),))] == 1
        assert metrics[("orgctl_reconcile_total", (("portal", "hq"), ("result", "drifted")))] >= 1
        assert ("orgctl_portal_shard", (("portal", "hq"), ("shard", "0"))) in metrics
        # A reconcile of minutes (a large portal, an apply) still falls in a bucket.
        assert (
            "orgctl_reconcile_duration_seconds_bucket",
            (("le", "600.0"), ("portal", "hq")),
        ) in metrics
    finally:
        assert agent.close() == 0


def test_refuses_to_start_without_trusted_origins(demo: World, tmp_path: Path) -> None:
    repo = repository(tmp_path)
    env = agent_env(demo)
    del env["ORGCTL_TRUSTED_ORIGINS"]
    done = demo.orgctl_process("agent", "--source", repo, "--once", portal="hq", env=env)
    assert done.returncode == 1, output_of(done)
    assert "ORGCTL_TRUSTED_ORIGINS" in done.stderr and "Traceback" not in done.stderr


def test_once_exits_0_in_sync_2_drifted_1_failed(demo: World, tmp_path: Path) -> None:
    repo = applied_repository(demo, tmp_path)
    once = ["agent", "--source", repo, "--path", "portals", "--once"]
    env = agent_env(demo)
    in_sync = demo.orgctl_process(*once, portal="hq", env=env)
    assert in_sync.returncode == 0, output_of(in_sync)
    demo.api("hq").set_privileges("Analyst", BY_HAND)
    drifted = demo.orgctl_process(*once, portal="hq", env=env)
    assert drifted.returncode == 2, output_of(drifted)
    healed = demo.orgctl_process(*once, "--allow-apply", portal="hq", env=env)
    assert healed.returncode == 2, output_of(healed)  # the manifests do not opt in
    edit(repo / "portals/hq/portal.yaml", "  safety:\n", "  agent: {selfHeal: true}\n  safety:\n")
    commit(repo, "hq heals itself")
    healed = demo.orgctl_process(*once, "--allow-apply", portal="hq", env=env)
    assert healed.returncode == 0, output_of(healed)  # applied and converged
    assert set(demo.api("hq").roles()["Analyst"]["privileges"]) != set(BY_HAND)
    dead = {**env, "ORGCTL_PORTAL_URL": "http://127.0.0.1:9/hq/sharing/rest"}
    failed = demo.orgctl_process(*once, "--deadline", "5s", portal="hq", env=dead)
    assert failed.returncode == 1, output_of(failed)


def test_report_mode_tells_a_hand_grant_self_heal_reverts_it(demo: World, tmp_path: Path) -> None:
    repo = applied_repository(demo, tmp_path)
    hook = Webhook()
    env = agent_env(demo, ORGCTL_NOTIFY_URL=hook.url)
    agent = Agent(["--source", str(repo), "--path", "portals", *FAST], env, tmp_path)
    try:
        agent.wait_state("hq", "Synced")
        demo.api("hq").set_privileges("Analyst", BY_HAND)
        shown = agent.wait_state("hq", "OutOfSync")
        assert shown["drifted"] == 1
        agent.wait_for("one more reconcile", lambda: later(agent, shown["lastReconcile"]))
        assert agent.portals()["hq"]["state"] == "OutOfSync"
    finally:
        assert agent.close() == 0
    edit(repo / "portals/hq/portal.yaml", "  safety:\n", "  agent: {selfHeal: true}\n  safety:\n")
    commit(repo, "hq heals itself")
    healing = Agent(
        ["--source", str(repo), "--path", "portals", "--allow-apply", *FAST], env, tmp_path
    )
    try:
        healing.wait_state("hq", "Synced")
        assert "portal:user:createGroup" not in demo.api("hq").roles()["Analyst"]["privileges"]
        demo.api("hq").set_privileges("Analyst", BY_HAND)  # again, behind the agent's back
        healing.wait_for("a second apply", lambda: applies(healing) == 2)
        assert "portal:user:createGroup" not in demo.api("hq").roles()["Analyst"]["privileges"]
        metrics = samples(healing)
        assert metrics[("orgctl_reconcile_total", (("portal", "hq"), ("result", "applied")))]
    finally:
        assert healing.close() == 0
        hook.close()
    texts = [post["text"] for post in hook.posts]
    # Report mode: Synced -> OutOfSync once, however many intervals it stays so. Healing:
    # the first reconcile applies (back to Synced), and so does the second hand grant.
    states = [text.split(": ", 1)[1].split(" at ")[0] for text in texts]
    assert states == ["OutOfSync", "Synced", "Synced"], texts
    assert all(t.startswith("orgctl agent hq: ") and "Role/Analyst" in t for t in texts), texts
    assert all("applied (converged); 1 reverted" in t for t in texts[1:]), texts


def applies(agent: Agent) -> float:
    """Applies the agent made that converged."""
    key = ("orgctl_apply_calls_total", (("outcome", "converged"), ("portal", "hq")))
    return samples(agent).get(key, 0)


def later(agent: Agent, moment: str) -> bool:
    return agent.portals()["hq"]["lastReconcile"] > moment


def test_a_hanging_portal_is_failed_at_its_deadline_and_delays_no_other(
    demo: World, tmp_path: Path
) -> None:
    hanging = socket.socket()  # accepts connections (the kernel's backlog), never answers
    hanging.bind(("127.0.0.1", 0))
    hanging.listen(16)
    origin = f"http://127.0.0.1:{hanging.getsockname()[1]}"
    repo = repository(tmp_path, {"hq": EXAMPLES / "hq", "stuck": EXAMPLES / "hq"})
    edit(repo / "portals/stuck/portal.yaml", "  name: hq\n", "  name: stuck\n")
    commit(repo, "a second portal")
    env = agent_env(
        demo,
        ORGCTL_TRUSTED_ORIGINS=f"{demo.service.url},{origin}",
        ORGCTL_STUCK_PORTAL_URL=f"{origin}/stuck/sharing/rest",
        ORGCTL_STUCK_ADMIN_URL=f"{origin}/stuck/admin",
    )
    args = ["--source", str(repo), "--path", "portals", "--interval", "1s", "--jitter", "0"]
    agent = Agent([*args, "--deadline", "8s"], env, tmp_path)
    try:
        stuck = agent.wait_state("stuck", "Failed")
        assert stuck["lastError"] == "no result within the deadline (8 s)"
        # While the stuck portal waited out its deadline, hq kept its own interval.
        hq = (("portal", "hq"), ("result", "drifted"))
        assert samples(agent)[("orgctl_reconcile_total", hq)] >= 2
        assert agent.http.get("/readyz").status_code == 200  # Failed counts as reconciled
    finally:
        assert agent.close() == 0
        hanging.close()


def test_a_revision_that_does_not_load_keeps_the_last_good_one(demo: World, tmp_path: Path) -> None:
    repo = applied_repository(demo, tmp_path)
    good = git(repo, "rev-parse", "HEAD")
    agent = Agent(["--source", str(repo), "--path", "portals", *FAST], agent_env(demo), tmp_path)
    try:
        agent.wait_state("hq", "Synced", good)
        edit(repo / "portals/hq/roles.yaml", "  name: Analyst\n", "  name: Analyst\n  bogus: 1\n")
        bad = commit(repo, "a typo")
        shown = agent.wait_state("hq", "Failed", good)  # the revision stays the good one
        assert bad[:12] in shown["lastError"] and "roles.yaml:" in shown["lastError"]
        edit(repo / "portals/hq/roles.yaml", "  bogus: 1\n", "")
        fixed = commit(repo, "the typo fixed")
        assert agent.wait_state("hq", "Synced", fixed)["lastError"] is None
    finally:
        assert agent.close() == 0


def test_endpoints_refresh_and_push_hook_need_their_secrets(demo: World, tmp_path: Path) -> None:
    repo = applied_repository(demo, tmp_path)
    slow = ["--source", str(repo), "--path", "portals", "--interval", "1h", "--deadline", "30s"]
    secrets = {"REFRESH": "r3fresh-s3cret", "WEBHOOK": "h00k-s3cret"}
    env = agent_env(demo, **{f"ORGCTL_AGENT_{name}_SECRET": s for name, s in secrets.items()})
    agent = Agent(slow, env, tmp_path)
    try:
        assert agent.http.get("/healthz").status_code == 200
        agent.wait_state("hq", "Synced")
        assert agent.http.get("/readyz").status_code == 200
        declared = demo.api("hq").roles()["Analyst"]["privileges"]
        demo.api("hq").set_privileges("Analyst", BY_HAND)
        refused = agent.http.post("/api/v1/refresh", headers={"Authorization": "Bearer wrong"})
        assert refused.status_code == 401
        done = agent.http.post(
            "/api/v1/refresh", headers={"Authorization": "Bearer r3fresh-s3cret"}
        )
        assert done.status_code == 202
        agent.wait_state("hq", "OutOfSync")  # now, not in an hour
        demo.api("hq").set_privileges("Analyst", declared)
        body = json.dumps({"ref": "refs/heads/main"}).encode()
        digest = hmac.new(b"h00k-s3cret", body, hashlib.sha256).hexdigest()
        unsigned = agent.http.post("/hooks/git", content=body)
        assert unsigned.status_code == 401
        pushed = agent.http.post(
            "/hooks/git", content=body, headers={"X-Hub-Signature-256": f"sha256={digest}"}
        )
        assert pushed.status_code == 202
        agent.wait_state("hq", "Synced")
        page = agent.http.get("/")
        assert page.headers["Content-Security-Policy"].startswith("default-src 'none'")
        assert "OutOfSync" not in page.text and ">hq<" in page.text
        shown = "".join(agent.http.get(p).text for p in ("/", "/metrics", "/api/v1/portals"))
        assert "s3cret" not in shown and "admin-pass" not in shown
    finally:
        assert agent.close() == 0


def test_without_their_secrets_refresh_and_the_hook_are_off(demo: World, tmp_path: Path) -> None:
    repo = repository(tmp_path)
    agent = Agent(["--source", str(repo), "--path", "portals", *FAST], agent_env(demo), tmp_path)
    try:
        bare = {"Authorization": "Bearer guess"}
        assert agent.http.post("/api/v1/refresh", headers=bare).status_code == 404
        assert agent.http.post("/hooks/git", content=b"{}").status_code == 404
    finally:
        assert agent.close() == 0


def test_a_password_file_wins_and_is_read_again_at_each_reconcile(
    demo: World, tmp_path: Path
) -> None:
    repo = applied_repository(demo, tmp_path)
    secret = tmp_path / "secrets" / "password"
    secret.parent.mkdir()
    secret.write_text("not-the-password\n")
    env = agent_env(
        demo, ORGCTL_HQ_USERNAME="admin", ORGCTL_HQ_PASSWORD_FILE=str(secret)
    )  # ORGCTL_PASSWORD, the right one, is set too: the file takes precedence
    agent = Agent(["--source", str(repo), "--path", "portals", *FAST], env, tmp_path)
    try:
        refused = agent.wait_state("hq", "Failed")
        assert "not-the-password" not in refused["lastError"]
        secret.write_text(env["ORGCTL_PASSWORD"] + "\n")  # rotated, as a cluster does
        agent.wait_state("hq", "Synced")
    finally:
        assert agent.close() == 0


def test_sigterm_stops_an_apply_in_flight_releases_the_lock_and_exits_0(
    serve: Serve, tmp_path: Path
) -> None:
    world = serve(bulk_state(tmp_path, 300))
    folder = bulk_manifests(tmp_path, 300)  # a plain folder: re-read, no Git
    edit(folder / "portal.yaml", "version: '11.3',", "version: '11.3', agent: {selfHeal: true},")
    env = {**world.env(PORTAL), "ORGCTL_TRUSTED_ORIGINS": world.service.url}
    agent = Agent(["--source", str(folder), "--allow-apply", *FAST], env, tmp_path)
    try:
        agent.wait_for("an apply holding the lock", lambda: holding(agent, world))
    finally:
        assert agent.close() == 0, agent.stderr()
    assert not lease_kept(world)  # the child apply released the portal's lock
    again = world.orgctl("apply", folder, "--auto-approve", "--lock-timeout", "0", portal=PORTAL)
    assert again.returncode == 0, output_of(again)


def holding(agent: Agent, world: World) -> bool:
    return agent.portals().get(PORTAL, {}).get("state") == "Applying" and lease_kept(world)
