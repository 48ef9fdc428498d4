"""`orgctl plan` of a large organization, end to end, as a user runs it (benchmarks/README.md).

For each size: seeds `orgctl serve` with N members and 1,000 roles, writes manifests that
manage every role and every member's role (they match the portal: an empty plan), and
runs `orgctl plan` and `orgctl validate` three times each as separate processes. Reports
the median wall time and the peak resident memory (`os.wait4`'s rusage) of each.
Goals at 100,000 members: plan wall <= 8 s and peak RSS <= 300 MB.

Run: .venv/bin/python benchmarks/plan_scale.py [--members 1000 10000 100000] [--runs 3]
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


def measure(members: int, runs: int) -> tuple[list[Run], list[Run]]:
    """(plan runs, validate runs) of one organization of `members` members."""
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
    return plans, validations


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
    args = parser.parse_args()
    for members in args.members:
        print(line(members, *measure(members, args.runs)), flush=True)


if __name__ == "__main__":
    main()
