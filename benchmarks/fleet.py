"""A fleet's drift in one process against one drift per portal (benchmarks/README.md).

Seeds one reference service with N portals of 1,000 members each (and two custom roles),
writes a fleet (a base holding a role, one folder per portal including it and managing
every member's role), then, in the same run and against the same service:
- `orgctl drift FLEET --jobs 8`, one process, the portals read concurrently;
- `orgctl drift FLEET --jobs 1`, one process, the portals one after the other, and
  `orgctl drift FLEET --jobs 2`, two processes (one a core of a 2-core runner), in turn
  (`--pairs`, default 3): the ratio is the median of each pair's, as one pair's moved
  by a tenth from run to run;
- `orgctl drift PORTAL` for each portal, one process each, one after the other (what a
  shell loop or a CI job per portal on one runner does).
Every run must find the portals in sync (exit 0). Peak memory is each process's maximum
resident set (`os.wait4`'s rusage). Targets: the fleet run at least 4x faster than the
sum of the single-portal runs, and `--jobs 2` at least 1.5x faster than `--jobs 1` on two
cores. The first run signs every member in for the first time, which raises each seeded
password hash to the sign-in cost (50 ms of the service's CPU each): `--jobs 1` and
`--jobs 2` come after it, so they compare the same work.

Run: .venv/bin/python benchmarks/fleet.py [--portals 50] [--members 1000] [--jobs 8]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from serving import Run, checked, serving, timed

PRIVILEGES = ["portal:user:joinGroup", "portal:user:viewOrgItems", "portal:user:viewOrgUsers"]


def state_yaml(portals: int, members: int) -> str:
    lines = ["clock: 2026-11-01T00:00:00Z", "portals:"]
    for p in range(portals):
        lines += [
            f'  - id: "{p:016x}"',
            f"    urlKey: p{p:03d}",
            f"    name: Portal {p}",
            "    deployment: self-hosted",
            '    version: "11.3"',
            "    users:",
            "      - {username: admin, password: admin-pass, role: org_admin, defaultAdmin: true}",
        ]
        lines += [
            f"      - {{username: user{i:05d}, password: p, role: Reader}}" for i in range(members)
        ]
        lines += [
            "    roles:",
            f"      - {{id: r{p:06d}0000001, name: Reader, description: d,"
            f" privileges: {PRIVILEGES}}}",
            f"      - {{id: r{p:06d}0000002, name: Spare, description: s,"
            f" privileges: {PRIVILEGES[:1]}}}",
        ]
    return "\n".join(lines) + "\n"


def fleet(root: Path, portals: int, members: int) -> list[Path]:
    """The fleet's folders: a base with the shared role, and one folder per portal."""
    (root / ".git").mkdir(parents=True)
    (root / "base").mkdir()
    (root / "base" / "roles.yaml").write_text(
        "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Reader}\n"
        f"spec: {{description: d, privileges: {PRIVILEGES}}}\n"
    )
    member_lines = "\n".join(f"    user{i:05d}: {{role: Reader}}" for i in range(members))
    folders = []
    for p in range(portals):
        folder = root / f"p{p:03d}"
        folder.mkdir()
        (folder / "portal.yaml").write_text(
            f"apiVersion: orgctl/v1\nkind: Portal\nmetadata: {{name: p{p:03d}}}\n"
            f"spec: {{url: 'https://p{p:03d}.example.com/portal/sharing/rest',"
            " deployment: self-hosted, version: '11.3',\n"
            "       auth: {usernameEnv: ORGCTL_USERNAME, passwordEnv: ORGCTL_PASSWORD},\n"
            "       include: [../base]}\n"
        )
        (folder / "members.yaml").write_text(
            "apiVersion: orgctl/v1\nkind: Members\nmetadata: {name: all}\nspec:\n  members:\n"
            + member_lines
            + "\n"
        )
        folders.append(folder)
    return folders


def environment(base: str, portals: int) -> dict[str, str]:
    """Each portal pointed at the service by its own URL variable, as a fleet needs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORGCTL_")}
    env.update(ORGCTL_USERNAME="admin", ORGCTL_PASSWORD="admin-pass", NO_COLOR="1")
    for p in range(portals):
        env[f"ORGCTL_P{p:03d}_PORTAL_URL"] = f"{base}/p{p:03d}/sharing/rest"
    return env


def _pair(root: Path, env: dict[str, str]) -> tuple[Run, Run]:
    """`--jobs 1`, then `--jobs 2`, of the fleet at `root`."""
    one = checked(timed(["drift", str(root), "--jobs", "1"], env), "--jobs 1")
    return one, checked(timed(["drift", str(root), "--jobs", "2"], env), "--jobs 2")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--portals", type=int, default=50)
    parser.add_argument("--members", type=int, default=1_000)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.yaml"
        state.write_text(state_yaml(args.portals, args.members))
        with serving(state, "--db", f"{tmp}/fleet.sqlite") as served:
            seeded = served.seconds_to_listen
            root = Path(tmp) / "fleet"
            folders = fleet(root, args.portals, args.members)
            env = environment(served.origin, args.portals)
            concurrent = checked(
                timed(["drift", str(root), "--jobs", str(args.jobs)], env), "fleet drift"
            )
            pairs = [_pair(root, env) for _ in range(args.pairs)]
            singles = [checked(timed(["drift", str(f)], env), f"drift {f.name}") for f in folders]
    total = sum(r.seconds for r in singles)
    ones, twos = [one for one, _ in pairs], [two for _, two in pairs]
    one_by_one = statistics.median(one.seconds for one in ones)
    summary = concurrent.output.strip().splitlines()[-1]
    print(f"fleet: {args.portals} portals x {args.members} members, one orgctl serve")
    print(f"service seeded and ready in {seeded:.1f} s")
    print(
        f"orgctl drift FLEET --jobs {args.jobs}: {concurrent.seconds:.1f} s, peak"
        f" {concurrent.peak_mib:.0f} MiB ({summary})"
    )
    for jobs, runs in (("1", ones), ("2", twos)):
        seconds = ", ".join(f"{run.seconds:.2f}" for run in runs)
        peak = max(run.peak_mib for run in runs)
        print(f"orgctl drift FLEET --jobs {jobs}: {seconds} s, peak {peak:.0f} MiB")
    print(
        f"{len(singles)} x orgctl drift PORTAL, one after the other: {total:.1f} s"
        f" (mean {total / len(singles):.2f} s, peak {max(r.peak_mib for r in singles):.0f} MiB)"
    )
    print(
        f"speed-up of the fleet run: {total / concurrent.seconds:.1f}x (target >= 4x);"
        f" of --jobs {args.jobs} over --jobs 1: {one_by_one / concurrent.seconds:.1f}x"
    )
    ratios = [one.seconds / two.seconds for one, two in zip(ones, twos, strict=True)]
    print(
        f"--jobs 2 over --jobs 1: {statistics.median(ratios):.2f}x, median of"
        f" {', '.join(f'{r:.2f}' for r in ratios)} (target >= 1.5x on {os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()
