"""The access report after the read (benchmarks/README.md): a 10,000-member portal's
document built and rendered in each format; the document and any one format together
under 2 s.

With --peak, each format's peak resident memory at 100,000 members (goal: under 400 MiB
each): one process per format builds the portal and the document and writes the report
to /dev/null, and its maximum RSS is read from `os.wait4`.

Run: .venv/bin/python benchmarks/access.py [--members N] [--roles N] [--peak [N]]
The portal is built in memory: custom roles of 5 to 40 privileges (one in ten holding
administrative ones), 1 % of members org_admin, 5 % org_publisher, a third org_user and
the rest on custom roles; one in ten at level 1, one in fifty disabled, sign-ins spread
over the last 400 days and one in twenty never.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial

from reconciler.access import FORMATS, AccessQuery, access_document, render_access
from reconciler.access.document import PortalNames
from reconciler.access.render import write_access
from reconciler.catalog import privileges_for
from reconciler.state import NEVER_SIGNED_IN, LiveState, Member, PortalInfo, Role
from reconciler.versions import Platform

GOAL_SECONDS = 2.0
GOAL_PEAK_MIB = 400
NOW_MS = 1_793_491_200_000  # 2026-11-01
DAY_MS = 86_400_000
PLATFORM = Platform.parse("self-hosted", "10.6.1")
NAMES = PortalNames("bench", "https://gis.example.com/portal/sharing/rest", "portals/bench")


def portal(members: int, roles: int) -> LiveState:
    catalog = sorted(privileges_for(PLATFORM))
    plain = [p for p in catalog if not p.startswith("portal:admin:")]
    admin = [p for p in catalog if p.startswith("portal:admin:")]
    custom = {}
    for n in range(roles):
        held = plain[n % 7 : n % 7 + 5 + n % 35]
        if n % 10 == 0:
            held += admin[: 1 + n % 5]
        custom[f"Role {n:04d}"] = Role(f"Role {n:04d}", "", frozenset(held), id=f"r{n:013d}")
    names = list(custom)
    return LiveState(
        portal=PortalInfo("p1", "Bench", PLATFORM, "admin"),
        roles=custom,
        members={f"user{n:06d}": _member(n, names) for n in range(members)},
    )


def _member(n: int, roles: list[str]) -> Member:
    if n % 100 == 0:
        role = "org_admin"
    elif n % 20 == 1:
        role = "org_publisher"
    elif n % 3 == 0:
        role = "org_user"
    else:
        role = roles[n % len(roles)]
    level = 1 if n % 10 == 7 and role not in ("org_admin", "org_publisher", "org_user") else 2
    last = NEVER_SIGNED_IN if n % 20 == 3 else NOW_MS - (n * 7919 % 400) * DAY_MS
    return Member(f"user{n:06d}", role, level, disabled=n % 50 == 9, lastLogin=last)


def best_of(work: Callable[[], object], repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def write_report(fmt: str, members: int, roles: int) -> None:
    """One format's report of a portal of `members`, written to /dev/null."""
    document = access_document(portal(members, roles), NAMES, AccessQuery(90, ()), NOW_MS)
    with open(os.devnull, "w", encoding="utf-8") as out:
        write_access(document, fmt, out)


def peak_mib(fmt: str, members: int, roles: int) -> float:
    """The peak resident memory of a process writing one format's report."""
    script = (
        f"import sys; sys.path.insert(0, {os.getcwd()!r});"
        f" from benchmarks.access import write_report; write_report({fmt!r}, {members}, {roles})"
    )
    process = subprocess.Popen([sys.executable, "-c", script])
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise SystemExit(f"the {fmt} report failed ({status})")
    return usage.ru_maxrss / 1024  # KiB on Linux


def peaks(members: int, roles: int, repeats: int = 3) -> None:
    print(f"access peak RSS, {members:,} members, {roles:,} roles, median of {repeats}:")
    for fmt in FORMATS:
        median = statistics.median(peak_mib(fmt, members, roles) for _ in range(repeats))
        verdict = "ok" if median < GOAL_PEAK_MIB else "OVER GOAL"
        print(f"  {fmt:<10} {median:6.0f} MiB (goal < {GOAL_PEAK_MIB} MiB: {verdict})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--members", type=int, default=10_000)
    parser.add_argument("--roles", type=int, default=200)
    parser.add_argument("--peak", type=int, nargs="?", const=100_000, metavar="MEMBERS")
    args = parser.parse_args()
    if args.peak:
        peaks(args.peak, args.roles)
        return
    live = portal(args.members, args.roles)
    for patterns in ((), ("portal:admin:*",)):
        query = AccessQuery(90, patterns)
        document = access_document(live, NAMES, query, NOW_MS)
        pairs = sum(p["holders"] for p in document["privileges"])
        label = f" --privilege {patterns[0]}" if patterns else ""
        print(
            f"access{label}: {args.members:,} members, {len(document['roles']):,} roles,"
            f" {len(document['findings']):,} findings, {pairs:,} member-privilege pairs"
        )
        built = best_of(partial(access_document, live, NAMES, query, NOW_MS))
        print(f"  {'document':<10} best of 3: {built * 1000:7.1f} ms")
        for fmt in ("text", "json", "csv", "markdown"):
            seconds = best_of(partial(render_access, document, fmt))
            size = len(render_access(document, fmt).encode())
            total = built + seconds
            verdict = "ok" if total < GOAL_SECONDS else "OVER GOAL"
            print(
                f"  {fmt:<10} best of 3: {seconds * 1000:7.1f} ms, {size / 1e6:6.1f} MB;"
                f" with the document {total * 1000:7.1f} ms (goal < 2 s: {verdict})"
            )


if __name__ == "__main__":
    main()
