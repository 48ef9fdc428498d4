"""`orgctl certify start` with 10,000 members in scope (benchmarks/README.md); goal: under
10 s.

Two figures: the whole command as a user runs it, a separate process against `orgctl
serve` seeded with the members (reading the portal included), and the work after the read
alone (the items, the review files and the snapshot) on the varied portal that
benchmarks/access.py builds in memory (custom roles, levels, disabled and stale members).
Each is the median of --runs.

Run: .venv/bin/python benchmarks/certify.py [--members N] [--runs N]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import tempfile
import time
from pathlib import Path

from access import portal
from plan_requests import CREDENTIALS, state_yaml
from serving import checked, serving, timed

from reconciler.certify import campaigns

GOAL_SECONDS = 10.0
NOW = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
CAMPAIGN = """apiVersion: orgctl/v1
kind: Campaign
metadata: {name: everyone}
spec:
  scope: {privileges: ["*"]}
  reviewers: {roleOwners: true, fallback: [admin, auditor]}
  due: 2026-12-15
  noResponse: keep
  revokeTo: {role: org_user}
"""


def portal_folder(folder: Path, url: str) -> Path:
    folder.mkdir()
    (folder / "portal.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Portal\nmetadata: {name: big}\n"
        f"spec: {{url: {url}, deployment: self-hosted, version: '10.6.1',\n"
        "       auth: {usernameEnv: ORGCTL_USERNAME, passwordEnv: ORGCTL_PASSWORD}}\n"
    )
    (folder / "campaign.yaml").write_text(CAMPAIGN)
    return folder


def whole_command(members: int, runs: int) -> tuple[float, float]:
    """(median seconds, peak MiB) of `orgctl certify start` against a seeded service."""
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.yaml"
        state.write_text(state_yaml(members, 0))
        with serving(state) as served:
            folder = portal_folder(Path(tmp) / "big", f"{served.origin}/big/sharing/rest")
            env = {**os.environ, **CREDENTIALS}
            done = [
                checked(
                    timed(
                        ["certify", "start", str(folder), "everyone", "--out", f"{tmp}/{n}"], env
                    ),
                    "certify start",
                )
                for n in range(runs)
            ]
    return statistics.median(r.seconds for r in done), max(r.peak_mib for r in done)


def after_the_read(members: int, runs: int) -> tuple[float, int]:
    """(median seconds, items) of the items and files of access.py's in-memory portal."""
    live = portal(members, 200)
    seconds = []
    with tempfile.TemporaryDirectory() as tmp:
        # No environment: the folder's own URL, no credentials (nothing is read from it).
        folder = portal_folder(Path(tmp) / "p", "https://gis.example.com/sharing/rest")
        loaded = campaigns.load(folder, "everyone", {})
        for n in range(runs):
            started = time.perf_counter()
            done = campaigns.start(loaded, live, NOW, {}, Path(tmp) / str(n))
            seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), done.items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--members", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    seconds, items = after_the_read(args.members, args.runs)
    print(f"certify start: {items:,} members in scope, median of {args.runs}:")
    print(f"  after the read  {seconds:6.2f} s (items, review files, snapshot)")
    wall, peak = whole_command(args.members, args.runs)
    verdict = "ok" if wall < GOAL_SECONDS else "OVER GOAL"
    print(
        f"  whole command   {wall:6.2f} s, peak {peak:4.0f} MiB"
        f" (goal < {GOAL_SECONDS:.0f} s: {verdict})"
    )


if __name__ == "__main__":
    main()
