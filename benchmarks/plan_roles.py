"""Plans that must stay linear in roles (benchmarks/README.md): 10,000 roles planned plain,
with every role renamed (`metadata.previousNames`), with `metadata.ignoreChanges` on every
role (its live description differs), and with 10,000 live roles no document declares
pruned. Each is loaded from manifests and planned against a live state built in memory,
median of 3; the ratios to the plain plan are taken in this one run. Target: renames and
ignoreChanges each at most 1.5x the plain plan.

Run: .venv/bin/python benchmarks/plan_roles.py [--roles N] [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from load_manifests import PORTAL

import reconciler.kinds  # noqa: F401  (the built-in kinds, as the CLI loads them)
from reconciler.manifest.desired import load_desired
from reconciler.plan.planner import build_plan
from reconciler.state import DesiredState, LiveState, PortalInfo, Role
from reconciler.versions import Platform

PLATFORM = Platform.parse("self-hosted", "10.6.1")
PRIVILEGES = frozenset({"portal:user:joinGroup", "portal:user:viewOrgItems"})
# Role i of each variant: its metadata beyond the name, and the live role's name.
VARIANTS = {
    "plain": ("", "Role {i}"),
    "renames": (", previousNames: [Old role {i}]", "Old role {i}"),
    "ignoreChanges": (", ignoreChanges: [spec.description]", "Role {i}"),
    "pruned": ("", "Stray role {i}"),  # every live role undeclared: deleted but one kept
}
PRUNING = "  pruneRoles: true\n  keepRoles: [Stray role 0]\n"


def world(root: Path, variant: str, count: int) -> tuple[DesiredState, LiveState]:
    """The variant's manifests, written under `root` and loaded, and its live state."""
    extra, live_name = VARIANTS[variant]
    folder = root / f"{variant}-{count}"
    folder.mkdir()
    (folder / "portal.yaml").write_text(PORTAL + PRUNING)
    (folder / "roles.yaml").write_text(
        "".join(
            "---\napiVersion: orgctl/v1\nkind: Role\n"
            f"metadata: {{name: Role {i}{extra.format(i=i)}}}\n"
            f"spec: {{description: declared, privileges: [{', '.join(sorted(PRIVILEGES))}]}}\n"
            for i in range(count)
        )
    )
    live = LiveState(
        portal=PortalInfo(id="0123456789abcdef", name="B", platform=PLATFORM, username="admin")
    )
    for i in range(count):
        name = live_name.format(i=i)
        live.roles[name] = Role(name, "live", PRIVILEGES, id=f"r{i:013d}")
    return load_desired(folder, {"ORGCTL_TOKEN": "bench"}), live


def median_plan(desired: DesiredState, live: LiveState, runs: int) -> tuple[float, int]:
    times, calls = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        plan = build_plan(desired, live, allow_deletes=True)
        times.append(time.perf_counter() - start)
        calls = len(plan.calls)
    return statistics.median(times), calls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--roles", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = {
            variant: median_plan(*world(Path(tmp), variant, args.roles), args.runs)
            for variant in VARIANTS
        }
    plain = results["plain"][0]
    for variant, (seconds, calls) in results.items():
        print(
            f"{args.roles:,} roles, {variant:>13}: plan {seconds:6.2f} s"
            f" ({seconds / plain:4.2f}x plain), {calls:,} calls"
        )


if __name__ == "__main__":
    main()
