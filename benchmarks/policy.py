"""Policy cost against the plan's own (issue: 20 policies over 10,000 members and 200 roles
add less than the plan's CPU time). One run, process CPU time, best of 3 each:

Run: .venv/bin/python benchmarks/policy.py

The plan is benchmarks/plan_cpu.py's world (a tenth of the roles and members differ),
made as varied as a real portal's: a fifth of the roles grant administrative privileges,
a quarter of the members are level 1, each member has its own last sign-in (some never
signed in, some are disabled). The 20 policies are the kinds the issue names, declared as
the manifests would declare them: 11 on members (separation of duties, stale
administrators, level-1 administrators, new access), 5 on roles, 2 on the portal and 2 on
the planned changes, judged on the live state and after the plan; a 21st reading every
member's own last sign-in is shown apart. The CEL library
comparison is benchmarks/cel_libraries.py.
"""

from __future__ import annotations

import time
from dataclasses import replace

from plan_cpu import world

from reconciler.kinds.policy import Policy
from reconciler.plan.planner import build_plan
from reconciler.state import NEVER_SIGNED_IN, DesiredState, LiveState

MEMBERS, ROLES = 10_000, 200
NOW_S = 1_793_491_200
ADMINISTRATIVE = (
    "portal:admin:viewUsers",
    "portal:admin:updateUsers",
    "portal:admin:changeUserRoles",
    "portal:admin:manageRoles",
    "portal:admin:deleteUsers",
)
STALE = "timestamp('2026-06-01T00:00:00Z')"
# (subject, match, rule): what an organization writes.
POLICIES: tuple[tuple[str, str | None, str], ...] = (
    ("member", 'member.role != "org_admin"', "!(member.level == 1 && member.administrative)"),
    (
        "member",
        None,
        '!("portal:admin:manageRoles" in member.privileges'
        ' && "portal:admin:changeUserRoles" in member.privileges)',
    ),
    ("member", "member.administrative", f"member.lastLogin != null && member.lastLogin > {STALE}"),
    ("member", None, "size(member.gained) == 0"),
    ("member", None, 'member.gained.all(p, !p.startsWith("portal:admin:"))'),
    ("member", "member.disabled", "size(member.privileges) == 0"),
    ("member", None, 'member.privileges.exists(p, p == "portal:user:joinGroup")'),
    ("member", "member.level == 1", 'member.rolePrivileges.all(p, p.startsWith("portal:user:"))'),
    ("member", None, "size(member.lost) <= 3"),
    ("member", 'member.role == "org_publisher"', "member.level == 2"),
    ("member", 'member.role == "org_admin"', "member.level == 2"),
    ("role", None, "size(role.holders) <= 100"),
    (
        "role",
        '"portal:admin:deleteUsers" in role.privileges',
        "size(role.holders) <= 5",
    ),
    ("role", "role.administrative", "size(role.holders) <= 60"),
    ("role", None, 'role.privileges.filter(p, p.startsWith("portal:admin:")).size() < 5'),
    ("role", None, "role.privileges.all(p, p in role.privilegesBefore)"),
    ("portal", None, "portal.administrators <= 5"),
    ("portal", None, "portal.members < 20000"),
    ("change", None, 'change.action != "delete"'),
    ("change", 'change.address.startsWith("Role/")', 'change.action != "create"'),
)


def _policies(declared: tuple[tuple[str, str | None, str], ...]) -> list[Policy]:
    return [
        Policy.model_validate(
            {
                "apiVersion": "orgctl/v1",
                "kind": "Policy",
                "metadata": {"name": f"p{i}"},
                "spec": {
                    "enforcement": "advisory",
                    "subject": subject,
                    **({"match": match} if match else {}),
                    "rule": rule,
                    "message": "m",
                },
            }
        )
        for i, (subject, match, rule) in enumerate(declared)
    ]


def varied(desired: DesiredState, live: LiveState) -> None:
    """A fifth of the roles administrative, a quarter of the members level 1, every last
    sign-in its own, in both states so the plan's changes stay those of plan_cpu."""
    for index, name in enumerate(sorted(live.roles)):
        if index % 5 == 0:
            extra = frozenset(ADMINISTRATIVE[: 1 + index % len(ADMINISTRATIVE)])
            held = live.roles[name].privileges or frozenset()
            live.roles[name] = replace(live.roles[name], privileges=held | extra)
            if name in desired.roles:
                role = desired.roles[name]
                desired.roles[name] = replace(
                    role, privileges=(role.privileges or frozenset()) | extra
                )
    for index, (username, member) in enumerate(sorted(live.members.items())):
        level = 1 if index % 4 == 0 else 2
        signed_in = NEVER_SIGNED_IN if index % 50 == 0 else (NOW_S - index * 1_800) * 1000
        live.members[username] = replace(
            member, level=level, disabled=index % 97 == 0, lastLogin=signed_in
        )
        desired.members[username] = replace(desired.members[username], level=level)
    desired.members["admin"] = live.members["admin"] = replace(
        next(iter(live.members.values())), username="admin", role="org_admin", level=2
    )


def _best_cpu(desired: DesiredState, live: LiveState, repeats: int = 3) -> tuple[float, int, int]:
    best, verdicts, changes = float("inf"), 0, 0
    for _ in range(repeats):
        start = time.process_time()
        plan = build_plan(desired, live, now=NOW_S)
        best = min(best, time.process_time() - start)
        verdicts, changes = len(plan.policies or ()), len(plan.changes)
    return best, verdicts, changes


# A rule reading a field every member has of its own (here the last sign-in, on every
# member) is evaluated once per member: shown apart, as its cost is per member.
EVERY_MEMBER = (
    "member",
    None,
    'member.disabled || (member.lastLogin != null && now - member.lastLogin < duration("4320h"))',
)


def main() -> None:
    desired, live = world(MEMBERS, ROLES)
    varied(desired, live)
    plain, _, changes = _best_cpu(desired, live)
    desired.kinds["Policy"] = _policies(POLICIES)
    judged, verdicts, _ = _best_cpu(desired, live)
    added = judged - plain
    print(
        f"plan {MEMBERS:,} members + {ROLES} roles ({changes:,} changes): {plain:.2f} s CPU;"
        f" with {len(POLICIES)} policies {judged:.2f} s ({verdicts:,} verdicts): policies add"
        f" {added:.2f} s, {added / plain:.2f}x the plan's own CPU time (target < 1)"
    )
    desired.kinds["Policy"] = _policies((*POLICIES, EVERY_MEMBER))
    more, _, _ = _best_cpu(desired, live)
    print(
        f"  and a 21st policy reading every member's last sign-in: {more:.2f} s,"
        f" {(more - plain) / plain:.2f}x the plan's own CPU time"
    )


if __name__ == "__main__":
    main()
