"""What planning and applying each example costs against the demo state (benchmarks/README.md).

Starts `orgctl serve` with `examples/demo/state.yaml`, then for each example: the HTTP
requests a plan makes and its read + plan wall time (in process, so the count is exact),
the wall time of the `orgctl plan` command itself, the calls planned, the calls `orgctl
apply` sent successfully (from its journal), and the calls a plan after it still finds (0
when the example converged).

Run: .venv/bin/python benchmarks/examples.py
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from serving import DEMO_STATE, ORGCTL, ROOT
from serving import EXAMPLES as EXAMPLES_FOLDER

import reconciler.kinds  # noqa: F401  (the built-in kinds, as the CLI loads them)
from orgctl_service.testing.service import Service
from reconciler.manifest.desired import load_desired
from reconciler.workflow import connect, plan_live

EXAMPLES = ("hq", "field", "cloud")


def environment(base: str, portal: str) -> dict[str, str]:
    return {
        **os.environ,
        "ORGCTL_USERNAME": "admin",
        "ORGCTL_PASSWORD": "admin-pass",
        "ORGCTL_PORTAL_URL": f"{base}/{portal}/sharing/rest",
        "ORGCTL_ADMIN_URL": f"{base}/{portal}/admin",
    }


async def requests_of_a_plan(folder: Path, env: dict[str, str]) -> tuple[int, float, int]:
    """(HTTP requests, read + plan seconds, calls planned) of one in-process plan."""
    desired = load_desired(folder, env)
    client = connect(desired, env)
    async with client:
        started = time.perf_counter()
        planned = await plan_live(client, desired)
        elapsed = time.perf_counter() - started
    return client.requests, elapsed, len(planned.plan.calls)


def orgctl(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ORGCTL, *args], env=env, cwd=ROOT, capture_output=True, text=True, check=False
    )


def planned_calls(folder: Path, env: dict[str, str]) -> int:
    result = orgctl("plan", str(folder), "--format", "json", env=env)
    if result.returncode not in (0, 2):
        raise SystemExit(f"orgctl plan {folder.name} failed: {result.stderr.strip()}")
    return len(json.loads(result.stdout)["calls"])


def measure(base: str, name: str, journal: Path) -> str:
    folder = EXAMPLES_FOLDER / name
    env = environment(base, name)
    requests, read_and_plan, calls = asyncio.run(requests_of_a_plan(folder, env))
    started = time.perf_counter()
    planned = orgctl("plan", str(folder), env=env)
    command = time.perf_counter() - started
    if planned.returncode not in (0, 2):
        raise SystemExit(f"orgctl plan {name} failed: {planned.stderr.strip()}")
    sent = applied_calls(folder, env, journal)
    left = planned_calls(folder, env)
    return (
        f"{name:<6} {requests:>8} {read_and_plan * 1000:>12.0f} {command * 1000:>12.0f}"
        f" {calls:>8} {sent:>8} {left:>10}"
    )


def applied_calls(folder: Path, env: dict[str, str], journal: Path) -> int:
    """Calls `orgctl apply` sent and saw succeed, counted from its journal."""
    applied = orgctl("apply", str(folder), "--auto-approve", "--journal", str(journal), env=env)
    if applied.returncode != 0:
        raise SystemExit(f"orgctl apply {folder.name} failed: {applied.stdout}{applied.stderr}")
    events = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    return sum(1 for event in events if event["event"] == "done")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        service = Service(Path(tmp) / "demo.sqlite", DEMO_STATE, control=False).start()
        try:
            print(
                f"{'example':<6} {'requests':>8} {'read+plan ms':>12} {'command ms':>12}"
                f" {'planned':>8} {'sent':>8} {'left after':>10}"
            )
            for name in EXAMPLES:
                journal = Path(tmp) / f"{name}.journal"
                print(measure(service.url, name, journal), flush=True)
        finally:
            service.stop()


if __name__ == "__main__":
    main()
