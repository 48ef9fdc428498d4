"""Members edited by hand, not by the manifests (`orgctl what-if --set-role USER=ROLE`,
`--set-level USER=N`): the members an access gives, as declarations with roles and
levels set."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from reconciler.errors import UserError
from reconciler.policy.variables import Access
from reconciler.state import Member


def assignments_edited(
    base: Access, roles: Sequence[tuple[str, str]], levels: Sequence[tuple[str, int]]
) -> dict[str, Member]:
    """Each member of `base` declared at its role and level, with each (username, role)
    of `roles` set, then each (username, level) of `levels`. A UserError for a username
    `base` has no member of, or a role it has not."""
    members = dict(base.members)
    for username, role in roles:
        if username not in members:
            raise UserError(f"the portal has no member {username!r}")
        if role not in base.roles:
            raise UserError(f"no role {role!r} on the portal or in the manifests")
        members[username] = replace(members[username], role=role)
    for username, level in levels:
        if username not in members:
            raise UserError(f"the portal has no member {username!r}")
        members[username] = replace(members[username], level=level)
    return {u: Member(u, m.role, m.level) for u, m in members.items()}
