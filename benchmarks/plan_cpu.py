"""Planner CPU and memory (benchmarks/README.md): diff and order 10,000 members + 1,000 roles in
well under a second; plan a 100,000-member portal within 300 MB.

Run: .venv/bin/python benchmarks/plan_cpu.py
A tenth of the roles and members differ, so the plan has real work (about 2,300 calls).
"""

from __future__ import annotations

import resource
import time
import tracemalloc

import reconciler.kinds  # noqa: F401  (the built-in kinds, as the CLI loads them)
from reconciler.plan.planner import build_plan
from reconciler.state import (
    Auth,
    DesiredState,
    LiveState,
    Member,
    PortalInfo,
    PortalTarget,
    Role,
)
from reconciler.versions import Platform

PLATFORM = Platform.parse("self-hosted", "10.6.1")
PRIVILEGES = (
    "portal:user:joinGroup",
    "portal:user:viewOrgItems",
    "portal:user:viewOrgUsers",
    "portal:user:createItem",
    "premium:user:geocode",
)


def world(members: int, roles: int) -> tuple[DesiredState, LiveState]:
    live = LiveState(
        portal=PortalInfo(
            id="0123456789abcdef",
            name="Bench",
            platform=PLATFORM,
            username="admin",
            levelQuotas={1: members, 2: members},
        )
    )
    desired = DesiredState(
        portal=PortalTarget(
            name="bench",
            url="https://gis.example.com/portal/sharing/rest",
            platform=PLATFORM,
            auth=Auth(tokenEnv="ORGCTL_TOKEN"),
        )
    )
    for r in range(roles):
        name = f"Role {r:05d}"
        privileges = frozenset(PRIVILEGES[: 1 + r % len(PRIVILEGES)])
        live.roles[name] = Role(name, f"role {r}", privileges, id=f"r{r:013d}")
        changed = r % 10 == 0
        desired.roles[name] = Role(
            name,
            f"role {r}" + (" v2" if changed else ""),
            frozenset(PRIVILEGES) if r % 10 == 1 else privileges,
        )
    for r in range(roles // 20):  # new roles
        name = f"New role {r:04d}"
        desired.roles[name] = Role(name, "new", frozenset(PRIVILEGES[:2]))
    for m in range(members):
        user = f"user{m:06d}"
        role = f"Role {m % roles:05d}"
        live.members[user] = Member(user, role, 2)
        new_role = f"Role {(m + 1) % roles:05d}" if m % 10 == 0 else role
        desired.members[user] = Member(user, new_role, 2)
    return desired, live


def time_plan(members: int, roles: int, repeats: int = 5) -> None:
    desired, live = world(members, roles)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        plan = build_plan(desired, live, now=1_793_491_200)
        best = min(best, time.perf_counter() - start)
    print(
        f"build_plan {members:,} members + {roles:,} roles: best of {repeats}: "
        f"{best * 1000:.0f} ms ({len(plan.changes):,} changes, {len(plan.calls):,} calls, "
        f"{len(plan.errors)} errors)"
    )


def peak_memory(members: int, roles: int) -> None:
    tracemalloc.start()
    desired, live = world(members, roles)
    states = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    plan = build_plan(desired, live, now=1_793_491_200)
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(
        f"build_plan {members:,} members + {roles:,} roles: {elapsed:.2f} s under tracemalloc, "
        f"states {states / 2**20:.0f} MiB, peak {peak / 2**20:.0f} MiB "
        f"({len(plan.calls):,} calls); process max RSS "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )


if __name__ == "__main__":
    time_plan(10_000, 1_000)
    peak_memory(100_000, 1_000)
