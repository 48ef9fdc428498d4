"""`orgctl agent` keeping a fleet of small portals (benchmarks/README.md).

Seeds one reference service with N small portals, commits a fleet for them to a Git
repository (benchmarks/fleet.py's layout), then:
- one `orgctl agent --once` pass over every portal: wall time, the agent's CPU (user +
  system) and peak RSS; every portal must be in sync (exit 0);
- with `--soak-minutes M`, a long-running agent on `--interval`: its resident memory
  sampled every `--sample-seconds`, and the reconciles done by then (from /metrics);
- the shard assignment of the fleet over 4 shards: the largest shard against the mean.
Targets: the pass within the interval (5 minutes by default); peak RSS flat (±10 %) over
the soak; the largest of 4 shards at most 1.25x the mean.

Run: .venv/bin/python benchmarks/agent.py [--portals 1000] [--members 2] [--soak-minutes 30]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from fleet import environment, fleet, state_yaml
from serving import ORGCTL, serving

from reconciler.agent.shards import assign


def committed(root: Path) -> None:
    """The fleet as a Git repository (fleet() marks its root with an empty .git)."""
    (root / ".git").rmdir()
    git = ["git", "-C", str(root), "-c", "user.name=b", "-c", "user.email=b@example.com"]
    subprocess.run([*git, "init", "--quiet", "--initial-branch", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "--quiet", "-m", "fleet"], check=True)


def one_pass(args: list[str], env: dict[str, str]) -> tuple[float, float, float, int, str]:
    """Wall seconds, CPU seconds, peak MiB, exit code and output of one agent process."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [*ORGCTL, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert process.stdout is not None
    output = process.stdout.read().decode(errors="replace")
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), output


def resident_mib(pid: int) -> tuple[float, float]:
    """VmRSS and VmHWM (peak) of a running process, in MiB."""
    text = Path(f"/proc/{pid}/status").read_text()
    values = {k: int(v) / 1024 for k, v in re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", text, re.M)}
    return values["VmRSS"], values["VmHWM"]


def reconciles(url: str) -> int:
    with urllib.request.urlopen(f"{url}/metrics", timeout=30) as reply:
        text = reply.read().decode()
    counted = re.findall(r"^orgctl_reconcile_total\{[^}]*\} (\S+)$", text, re.M)
    return int(sum(float(value) for value in counted))


def soak(args: list[str], env: dict[str, str], minutes: float, every: float) -> None:
    agent = subprocess.Popen(
        [*ORGCTL, *args, "--listen", "127.0.0.1:0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert agent.stdout is not None
        url = agent.stdout.readline().strip().rsplit(" ", 1)[-1]
        started = time.monotonic()
        print("soak: minute, RSS MiB, peak RSS MiB, reconciles so far")
        peaks: list[float] = []
        while time.monotonic() - started < minutes * 60:
            time.sleep(every)
            rss, peak = resident_mib(agent.pid)
            peaks.append(peak)
            minute = (time.monotonic() - started) / 60
            print(f"  {minute:5.1f}  {rss:7.1f}  {peak:7.1f}  {reconciles(url)}", flush=True)
        if peaks:
            settled = peaks[len(peaks) // 4 :] or peaks  # after the first passes warmed up
            spread = (max(settled) - min(settled)) / min(settled) * 100
            print(f"peak RSS from the first quarter on: {min(settled):.1f}-{max(settled):.1f}"
                  f" MiB ({spread:.1f} % spread; target within ±10 %)")  # fmt: skip
    finally:
        agent.terminate()
        agent.wait(timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--portals", type=int, default=1_000)
    parser.add_argument("--members", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--interval", default="5m")
    parser.add_argument("--soak-minutes", type=float, default=0)
    parser.add_argument("--sample-seconds", type=float, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.yaml"
        state.write_text(state_yaml(args.portals, args.members))
        with serving(state, "--db", f"{tmp}/fleet.sqlite") as served:
            root = Path(tmp) / "fleet"
            folders = fleet(root, args.portals, args.members)
            committed(root)
            env = {**environment(served.origin, args.portals)}
            env["ORGCTL_TRUSTED_ORIGINS"] = served.origin
            agent = ["agent", "--source", str(root), "--concurrency", str(args.concurrency)]
            agent += ["--interval", args.interval]
            wall, cpu, peak, code, output = one_pass([*agent, "--once"], env)
            if code != 0:
                raise SystemExit(f"agent --once exited {code}, not 0:\n{output[-2000:]}")
            print(f"agent: {args.portals} portals x {args.members} members, one orgctl serve,"
                  f" --concurrency {args.concurrency}")  # fmt: skip
            print(f"one pass (--once): {wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak:.0f} MiB;"
                  f" interval {args.interval}")  # fmt: skip
            if args.soak_minutes > 0:
                soak(agent, env, args.soak_minutes, args.sample_seconds)
    placed = assign([folder.name for folder in folders], 4)
    loads = [list(placed.values()).count(shard) for shard in range(4)]
    mean = len(folders) / 4
    print(f"4 shards: {loads} portals, largest {max(loads) / mean:.2f}x the mean (target <= 1.25)")


if __name__ == "__main__":
    main()
