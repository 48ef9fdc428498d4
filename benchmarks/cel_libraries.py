"""Compare CEL libraries on the policy workload: 20 policies (15 on members, 5 on roles)
over 10,000 members and 200 roles, compile and evaluate, process CPU time.

    python benchmarks/cel_libraries.py            # common-expression-language (Rust core)
    python benchmarks/cel_libraries.py cel-python # the pure-Python celpy, if installed

The Rust binding is measured two ways: a plain dict per evaluation (the dict is converted
on every call) and one `cel.Context` per subject shared by every policy, which orgctl uses.
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any

PRIVILEGES = [f"portal:user:p{i}" for i in range(40)] + [f"portal:admin:a{i}" for i in range(20)]
MEMBER_RULES = [
    "member.administrative && member.level == 1",
    '"portal:admin:a1" in member.privileges',
    'member.privileges.exists(p, p.startsWith("portal:admin:"))',
    "size(member.gained) == 0",
    '!(("portal:admin:a2" in member.privileges) && ("portal:admin:a3" in member.privileges))',
    'member.role != "org_admin" || member.level == 2',
    "member.lastLogin == null || member.disabled",
    'member.username.startsWith("u")',
    "size(member.privileges) < 30",
    'member.privileges.all(p, !p.endsWith("a9"))',
    "member.level != 1 || !member.administrative",
    "!member.disabled",
    "size(member.lost) <= 3",
    'member.role == "R1" || true',
    '"portal:user:p1" in member.rolePrivileges',
]
ROLE_RULES = [
    "size(role.holders) <= 5",
    'role.privileges.filter(p, p.startsWith("portal:admin:")).size() < 10',
    "!role.administrative || size(role.holders) < 100",
    "role.privileges.all(p, p in role.privilegesBefore) || true",
    'role.name != ""',
]


def workload() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(1)
    roles = [
        {
            "name": f"R{i}",
            "privileges": rng.sample(PRIVILEGES, 15),
            "privilegesBefore": rng.sample(PRIVILEGES, 15),
            "holders": [],
            "holdersBefore": [],
            "administrative": True,
        }
        for i in range(200)
    ]
    members = []
    for i in range(10_000):
        role = roles[i % 200]
        members.append(
            {
                "username": f"u{i}",
                "role": role["name"],
                "level": 1 + i % 2,
                "disabled": False,
                "lastLogin": None,
                "privileges": role["privileges"],
                "rolePrivileges": role["privileges"],
                "privilegesBefore": role["privilegesBefore"],
                "gained": [],
                "lost": [],
                "administrative": i % 3 == 0,
            }
        )
    return members, roles


def rust(members: list[dict[str, Any]], roles: list[dict[str, Any]], shared: bool) -> int:
    import cel

    on_members = [cel.compile(e) for e in MEMBER_RULES]
    on_roles = [cel.compile(e) for e in ROLE_RULES]
    held = 0
    for name, subjects, programs in (("member", members, on_members), ("role", roles, on_roles)):
        for subject in subjects:
            context: Any = cel.Context({name: subject}) if shared else {name: subject}
            held += sum(bool(p.execute(context)) for p in programs)
    return held


def celpy_(members: list[dict[str, Any]], roles: list[dict[str, Any]]) -> int:
    import celpy  # type: ignore[import-not-found]

    env = celpy.Environment()
    on_members = [env.program(env.compile(e)) for e in MEMBER_RULES]
    on_roles = [env.program(env.compile(e)) for e in ROLE_RULES]
    held = 0
    for name, subjects, programs in (("member", members, on_members), ("role", roles, on_roles)):
        for subject in subjects:
            activation = {name: celpy.json_to_cel(subject)}
            held += sum(bool(p.evaluate(activation)) for p in programs)
    return held


def timed(label: str, run: Any) -> None:
    start = time.process_time()
    held = run()
    print(f"{label:<44} {time.process_time() - start:7.2f} s CPU  ({held} rules held)")


def main() -> None:
    members, roles = workload()
    if sys.argv[1:] == ["cel-python"]:
        timed("cel-python (celpy), one activation/subject", lambda: celpy_(members, roles))
        return
    timed("common-expression-language, dict per call", lambda: rust(members, roles, False))
    timed("common-expression-language, Context/subject", lambda: rust(members, roles, True))


if __name__ == "__main__":
    main()
