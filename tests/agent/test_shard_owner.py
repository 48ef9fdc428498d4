"""A replica of `--shards N --shard K` reconciles exactly the portals that `orgctl agent
shards` lists for K, and says so in /api/v1/portals and in its metrics."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.cli import env_with, orgctl
from tests.e2e.agent_process import Agent, edit
from tests.e2e.harness import EXAMPLES, output_of

NAMES = [f"site-{i}" for i in range(7)]


def fleet(tmp_path: Path) -> Path:
    root = tmp_path / "portals"
    for name in NAMES:
        shutil.copytree(EXAMPLES / "hq", root / name)
        edit(root / name / "portal.yaml", "  name: hq\n", f"  name: {name}\n")
    return root


def test_a_replica_reconciles_its_shard_as_the_listing_says(tmp_path: Path) -> None:
    root = fleet(tmp_path)
    listed = orgctl("agent", "shards", "--shards", "3", root, "--format", "json", env=env_with())
    assert listed.returncode == 0, output_of(listed)
    shards = json.loads(listed.stdout)["shards"]
    assert list(shards) == ["0", "1", "2"]
    assert sorted(n for names in shards.values() for n in names) == NAMES
    # Nothing answers at the Portals' URLs: only the assignment is looked at here.
    env = env_with(ORGCTL_TRUSTED_ORIGINS="http://127.0.0.1:8080")
    agent = Agent(["--source", str(root), "--shards", "3", "--shard", "1"], env, tmp_path)
    try:
        agent.wait_for("the source read", lambda: bool(agent.portals()))
        shown = agent.portals()
        assert sorted(shown) == shards["1"]
        assert {portal["shard"] for portal in shown.values()} == {1}
        text = agent.http.get("/metrics").text
        placed = {
            (sample.labels["portal"], sample.labels["shard"])
            for family in text_string_to_metric_families(text)
            for sample in family.samples
            if sample.name == "orgctl_portal_shard"
        }
        assert placed == {(name, "1") for name in shards["1"]}
    finally:
        assert agent.close() == 0


def test_more_than_one_shard_needs_to_know_which(tmp_path: Path) -> None:
    env = env_with(ORGCTL_TRUSTED_ORIGINS="http://127.0.0.1:8080")
    done = orgctl("agent", "--source", fleet(tmp_path), "--shards", "2", "--once", env=env)
    assert done.returncode == 1 and "--shard K, or --shard-from-hostname" in done.stderr
