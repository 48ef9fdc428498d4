"""Apply through random faults: runs and requests until the portal matches (benchmarks/README.md).

For each row (fault kinds x rate), over `--seeds` seeds: starts `orgctl serve` with the
demo state, puts the seeded fault proxy (orgctl_service/testing/chaos.py) in front of it,
and runs `orgctl apply` of one example through the proxy until a plan straight to the
service finds nothing to do (orgctl_service/testing/converge.py, the loop
tests/e2e/test_chaos.py asserts on).
Prints, per row: runs to converge (mean, max), the HTTP requests all those applies sent
(mean), the faults injected (mean), and what must stay 0: seeds that did not converge
within `--max-runs`, applies whose exit code disagreed with the portal, duplicate roles,
tracebacks. Target: runs to converge <= 3 at 20 % for HTML and JSON 5xx.

`--new-roles N` adds N roles to create to the example (a copy of it in a temporary folder):
each create whose reply is unusable and which turns out absent is left to the next run, so
runs to converge grow with the creates an apply makes.

Run: .venv/bin/python benchmarks/faults.py [--example hq] [--new-roles 0] [--seeds 10]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from serving import DEMO_STATE, EXAMPLES

from orgctl_service.testing.chaos import HTML_5XX, JSON_5XX, MIXED, ChaosProxy, Fault, spread
from orgctl_service.testing.converge import apply_until_converged, duplicate_roles
from orgctl_service.testing.service import ADMIN, Api, PortalApi, Service
from reconciler.testing import env_with


@dataclass(frozen=True)
class Row:
    name: str
    faults: tuple[Fault, ...]
    rate: float


PRIVILEGE = "portal:user:viewOrgItems"  # in every deployment's catalog
ROWS = (
    Row("none", HTML_5XX, 0.0),
    Row("HTML 5xx", HTML_5XX, 0.10),
    Row("HTML 5xx", HTML_5XX, 0.20),
    Row("JSON 5xx", JSON_5XX, 0.10),
    Row("JSON 5xx", JSON_5XX, 0.20),
    Row("mixed", MIXED, 0.10),
    Row("mixed", MIXED, 0.20),
)


@dataclass
class Seeded:
    """One seed of one row."""

    runs: int
    converged: bool
    requests: int
    injected: int
    wrong_verdicts: int  # applies whose exit code said otherwise than the portal
    duplicates: int
    tracebacks: int
    seconds: float


def manifests(example: str, new_roles: int, folder: Path) -> Path:
    """The example's manifests, with `new_roles` more roles to create."""
    shutil.copytree(EXAMPLES / example, folder)
    roles = [
        f"apiVersion: orgctl/v1\nkind: Role\nmetadata: {{name: Bulk {i:03d}}}\n"
        f"spec: {{description: made by the fault benchmark, privileges: [{PRIVILEGE}]}}\n"
        for i in range(new_roles)
    ]
    if roles:
        (folder / "bulk-roles.yaml").write_text("---\n".join(roles))
    return folder


def one_seed(
    example: str, new_roles: int, row: Row, seed: int, max_runs: int, retry_after: float
) -> Seeded:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        folder = manifests(example, new_roles, workdir / example)
        service = Service(workdir / "demo.sqlite", DEMO_STATE, control=False).start()
        try:
            env = env_with(
                ORGCTL_PORTAL_URL=f"{service.url}/{example}/sharing/rest",
                ORGCTL_ADMIN_URL=f"{service.url}/{example}/admin",
                ORGCTL_USERNAME=ADMIN[0],
                ORGCTL_PASSWORD=ADMIN[1],
            )
            rates = spread(row.faults, row.rate)
            started = time.perf_counter()
            with ChaosProxy(service.url, rates, seed, retry_after=retry_after) as proxy:
                outcome = apply_until_converged(folder, env, service.url, proxy, max_runs, workdir)
            seconds = time.perf_counter() - started
            api = Api(service.url)
            try:
                duplicates = duplicate_roles(PortalApi(api, example, *ADMIN))
            finally:
                api.close()
        finally:
            service.stop()
    verdicts = zip(outcome.applies, outcome.checks, strict=True)
    return Seeded(
        runs=outcome.runs,
        converged=outcome.converged,
        requests=outcome.requests,
        injected=len(proxy.faulted),
        wrong_verdicts=sum((a.returncode == 0) != (c.returncode == 0) for a, c in verdicts),
        duplicates=sum(duplicates.values()),
        tracebacks=len(outcome.tracebacks()),
        seconds=seconds,
    )


def line(row: Row, results: list[Seeded]) -> str:
    runs = [r.runs for r in results]
    return (
        f"{row.name:<9} {row.rate:>5.0%} {statistics.mean(runs):>9.2f} {max(runs):>8}"
        f" {statistics.mean(r.requests for r in results):>9.1f}"
        f" {statistics.mean(r.injected for r in results):>8.1f}"
        f" {statistics.mean(r.seconds for r in results):>7.1f}"
        f" {sum(not r.converged for r in results):>7}"
        f" {sum(r.wrong_verdicts for r in results):>7}"
        f" {sum(r.duplicates for r in results):>5}"
        f" {sum(r.tracebacks for r in results):>5}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--example", default="hq", choices=("hq", "field", "cloud"))
    parser.add_argument("--new-roles", type=int, default=0, help="roles to create, added")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--max-runs", type=int, default=20)
    parser.add_argument("--retry-after", type=float, default=1.0, help="seconds, on each 429")
    args = parser.parse_args()
    extra = f" + {args.new_roles} new roles" if args.new_roles else ""
    print(
        f"example {args.example}{extra}, seeds 1..{args.seeds}, up to {args.max_runs} applies each"
    )
    print(
        f"{'faults':<9} {'rate':>5} {'runs mean':>9} {'runs max':>8} {'requests':>9}"
        f" {'injected':>8} {'wall s':>7} {'unconv':>7} {'verdict':>7} {'dups':>5} {'tback':>5}"
    )
    for row in ROWS:
        seeds = range(1, 2 if row.rate == 0 else args.seeds + 1)  # no faults: one is enough
        results = [
            one_seed(args.example, args.new_roles, row, seed, args.max_runs, args.retry_after)
            for seed in seeds
        ]
        print(line(row, results), flush=True)
    print(
        "runs: applies until a plan without faults finds nothing; requests: sent through the"
        " proxy by all of them; wall s: of all of them; unconv, verdict (apply's exit code"
        " wrong about the portal), dups (duplicate roles), tback (tracebacks) must be 0."
    )


if __name__ == "__main__":
    main()
