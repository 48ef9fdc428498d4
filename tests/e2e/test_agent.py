"""`orgctl agent` end to end: a Git repository made here, a real `orgctl serve`, the agent
as its own process on a port it chose, read through its endpoints."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from .agent_process import Agent, agent_env, commit, edit, git, repository
from .harness import World, output_of

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
    finally:
        assert agent.close() == 0


def test_refuses_to_start_without_trusted_origins(demo: World, tmp_path: Path) -> None:
    repo = repository(tmp_path)
    env = agent_env(demo)
    del env["ORGCTL_TRUSTED_ORIGINS"]
    done = demo.orgctl_process("agent", "--source", repo, "--once", portal="hq", env=env)
    assert done.returncode == 1, output_of(done)
    assert "ORGCTL_TRUSTED_ORIGINS" in done.stderr and "Traceback" not in done.stderr
