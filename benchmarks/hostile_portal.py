"""Each case of the hostile-portal proxy (orgctl_service/testing/hostile.py) with orgctl's DEFAULT
limits: the wall time and peak memory of one `orgctl plan` (or `apply`) of examples/hq
through it, and the last line it printed. Goal: every case ends within 60 s and 500 MB
with one clear line. The tests run the same cases with small limits, to stay fast.

Each case runs once, as its own process under /usr/bin/time -v, on a fresh service.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from serving import DEMO_STATE, EXAMPLES

from orgctl_service.testing.hostile import CASES, HostileProxy
from orgctl_service.testing.service import ADMIN, Service
from reconciler.testing import env_with, orgctl_command

TIMEOUT = 300.0


def measure(name: str) -> tuple[float, float, int, int, str]:
    """(wall seconds, orgctl's CPU seconds, peak RSS in KiB, lines on stderr, the last
    line) of one case; the wall includes the proxy's and the service's own pace."""
    case = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        service = Service(Path(tmp) / "demo.sqlite", DEMO_STATE, control=False).start()
        try:
            with HostileProxy.of(service.url, case) as proxy:
                env = env_with(
                    ORGCTL_PORTAL_URL=f"{proxy.url}/hq/sharing/rest",
                    ORGCTL_ADMIN_URL=f"{proxy.url}/hq/admin",
                    ORGCTL_USERNAME=ADMIN[0],
                    ORGCTL_PASSWORD=ADMIN[1],
                )
                approve = ["--auto-approve"] if case.command == "apply" else []
                command = orgctl_command([case.command, str(EXAMPLES / "hq"), *approve])
                began = time.monotonic()
                try:
                    done = subprocess.run(
                        ["/usr/bin/time", "-v", *command],
                        capture_output=True,
                        text=True,
                        env=env,
                        cwd=tmp,
                        timeout=TIMEOUT,
                        stdin=subprocess.DEVNULL,
                    )
                except subprocess.TimeoutExpired:
                    return TIMEOUT, 0.0, 0, 0, f"(still running after {TIMEOUT:g} s: stopped)"
                wall = time.monotonic() - began
        finally:
            service.stop()
    report, _, timing = done.stderr.partition("\tCommand being timed:")
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", timing)
    cpu = sum(float(s) for s in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", timing))
    lines = [
        line
        for line in report.splitlines()
        if line.strip() and not line.startswith("Command exited with non-zero status")
    ]
    # A plan's error is its one stderr line; an apply's verdict ends its report on stdout.
    last = lines[-1] if lines else (done.stdout.strip().splitlines() or [""])[-1]
    return wall, cpu, int(peak.group(1)) if peak else 0, len(lines), last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("cases", nargs="*", default=list(CASES), help="names of CASES")
    args = parser.parse_args()
    print(f"{'case':<26} {'wall':>7} {'CPU':>7} {'peak RSS':>9} {'stderr':>6}  last line")
    for name in args.cases:
        wall, cpu, peak, count, last = measure(name)
        shown = last if len(last) <= 160 else last[:157] + "..."
        print(f"{name:<26} {wall:>6.1f}s {cpu:>6.1f}s {peak / 1024:>5.0f} MiB {count:>6}  {shown}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
