"""Calls per second of `orgctl apply` against the raw write rate of plain clients
(benchmarks/README.md).

Seeds `orgctl serve` with 1,000 roles and writes manifests that give each role another set
of privileges: 1,000 setPrivileges calls. Measures, on a fresh service each time:
- apply: `orgctl apply --parallelism 8`; calls/s from its journal, first call started to
  last call answered (the read, plan and verification around them are not counted);
- raw: the same 1,000 POSTs from 8 threads, each with its own keep-alive client and the
  token signed in beforehand, first sent to last answered.
Reports the median of `--runs` (alternated) and apply / raw. Goal: the ratio no worse
than before a change, measured in the same session.

Run: .venv/bin/python benchmarks/apply_throughput.py [--calls 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import tempfile
from datetime import datetime
from pathlib import Path

import httpx
from plan_requests import CREDENTIALS, issued_token, manifests, state_yaml
from serving import checked, serving, timed, timed_threads

from reconciler.runtime import tune_garbage_collector

PARALLELISM = 8
PORTAL_ID = "0123456789abcdef"
NEW_PRIVILEGES = ["portal:user:joinGroup", "portal:user:viewOrgItems", "portal:user:createItem"]


def role_id(index: int) -> str:
    return f"r{index:013d}"  # as plan_requests.state_yaml seeds them


def apply_rate(folder: Path, state: Path, calls: int) -> float:
    """Calls/s of one `orgctl apply` on a fresh service, from its journal's timestamps."""
    with serving(state) as served:
        roles = manifests(folder, f"{served.origin}/big/sharing/rest", 1, calls, NEW_PRIVILEGES)
        journal = folder.parent / f"{folder.name}.jsonl"
        env = {**os.environ, **CREDENTIALS}
        args = ["apply", str(roles), "--auto-approve", "--journal", str(journal)]
        checked(timed([*args, "--parallelism", str(PARALLELISM)], env), "apply")
    events = [json.loads(line) for line in journal.read_text().splitlines()]
    answered = [e for e in events if e["event"] == "done"]
    if len(answered) != calls:
        raise SystemExit(f"apply answered {len(answered)} calls, not {calls}")
    moments = [datetime.fromisoformat(e["time"]) for e in events]
    return calls / (max(moments) - min(moments)).total_seconds()


def raw_rate(state: Path, calls: int) -> float:
    """Calls/s of the same writes from PARALLELISM plain clients on a fresh service."""
    with serving(state) as served:
        sharing = f"{served.origin}/big/sharing/rest"
        headers = {"X-Esri-Authorization": f"Bearer {issued_token(sharing)}", "Referer": sharing}
        work: queue.SimpleQueue[int] = queue.SimpleQueue()
        for index in range(calls):
            work.put(index)
        failures: list[str] = []
        data = {"f": "json", "privileges": json.dumps({"privileges": NEW_PRIVILEGES})}

        def client() -> None:
            with httpx.Client(timeout=30, headers=headers) as http:
                while True:
                    try:
                        index = work.get_nowait()
                    except queue.Empty:
                        return
                    url = f"{sharing}/portals/{PORTAL_ID}/roles/{role_id(index)}/setPrivileges"
                    body = http.post(url, data=data).json()
                    if body.get("success") is not True:
                        failures.append(str(body))

        elapsed = timed_threads([client] * PARALLELISM)
    if failures:
        raise SystemExit(f"a raw write failed: {failures[0]}")
    return calls / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    applied: list[float] = []
    raw: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.yaml"
        state.write_text(state_yaml(1, args.calls))
        for run in range(args.runs):
            applied.append(apply_rate(Path(tmp) / f"manifests{run}", state, args.calls))
            raw.append(raw_rate(state, args.calls))
    apply_median, raw_median = statistics.median(applied), statistics.median(raw)
    print(
        f"{args.calls:,} setPrivileges, {PARALLELISM} in flight (median of {args.runs}):"
        f" orgctl apply {apply_median:6.1f} calls/s, raw clients {raw_median:6.1f} calls/s;"
        f" apply / raw {apply_median / raw_median:4.2f}x"
    )


if __name__ == "__main__":
    tune_garbage_collector()
    main()
