"""`orgctl plan` of a large organization, end to end, as a user runs it (benchmarks/README.md).

For each size: seeds `orgctl serve` with N members and 1,000 roles, writes manifests that
manage every role and every member's role (they match the portal: an empty plan), and
runs `orgctl plan` and `orgctl validate` three times each as separate processes. Reports
the median wall time and the peak resident memory (`os.wait4`'s rusage) of each.
Goals at 100,000 members: plan wall <= 8 s and peak RSS <= 300 MB.

With `--access N` (default: the largest size), `orgctl access` of that organization once
in each format, the report written to /dev/null: its wall time and peak resident memory,
the read included (goal: under 400 MiB in every format).

Run: .venv/bin/python benchmarks/plan_scale.py [--members 1000 10000 100000] [--runs 3]
     [--access 100000 | --access 0]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from plan_requests import CREDENTIALS, manifests, state_yaml
from serving import Run, checked, serving, timed

ROLES = 1_000


ACCESS_FORMATS = ("text", "json", "csv", "markdown", "html")
GOAL_ACCESS_MIB = 400


def measure(
    members: int, runs: int, access: bool = False
) -> tuple[list[Run], list[Run], dict[str, Run]]:
    """(plan runs, validate runs, access runs by format) of one organization of
    `members` members (no access runs unless `access`)."""
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.yaml"
        state.write_text(state_yaml(members, ROLES))
        with serving(state) as served:
            url = f"{served.origin}/big/sharing/rest"
            folder = str(manifests(Path(tmp) / "manifests", url, members, ROLES))
            env = {**os.environ, **CREDENTIALS}
            plans = [checked(timed(["plan", folder], env), "plan") for _ in range(runs)]
            validations = [
                checked(timed(["validate", folder], env), "validate") for _ in range(runs)
            ]
            reports = {
                fmt: checked(timed(["access", folder, "--format", fmt, "-o", os.devnull], env), fmt)
                for fmt in (ACCESS_FORMATS if access else ())
            }
    return plans, validations, reports


def access_lines(members: int, reports: dict[str, Run]) -> list[str]:
    return [
        f"  orgctl access --format {fmt:<8} {members:,} members: {run.seconds:5.2f} s,"
        f" peak {run.peak_mib:4.0f} MiB"
        f" (goal < {GOAL_ACCESS_MIB} MiB: {'ok' if run.peak_mib < GOAL_ACCESS_MIB else 'OVER'})"
        for fmt, run in reports.items()
    ]


def line(members: int, plans: list[Run], validations: list[Run]) -> str:
    peak = max(r.peak_mib for r in plans)
    wall = statistics.median(r.seconds for r in plans)
    return (
        f"{members:>7,} members + {ROLES:,} roles: plan {wall:6.2f} s,"
        f" peak {peak:5.0f} MiB ({peak * 1.048576:4.0f} MB);"
        f" validate {statistics.median(r.seconds for r in validations):5.2f} s,"
        f" peak {max(r.peak_mib for r in validations):4.0f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--members", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--access", type=int, default=None, help="0: no access runs")
    args = parser.parse_args()
    access_at = max(args.members) if args.access is None else args.access
    for members in args.members:
        plans, validations, reports = measure(members, args.runs, members == access_at)
        print(line(members, plans, validations), flush=True)
        for text in access_lines(members, reports):
            print(text, flush=True)


if __name__ == "__main__":
    main()
