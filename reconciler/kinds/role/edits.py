"""Roles edited by hand, not by the manifests (`orgctl what-if --remove-privilege
ROLE=PRIV`, `--add-privilege ROLE=PRIV`): the roles an access gives, with privileges
taken away and given."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from reconciler.errors import UserError
from reconciler.policy.variables import Access
from reconciler.state import DesiredState, Role

Edit = tuple[str, str]  # (role, privilege)


def privileges_edited(
    base: Access, desired: DesiredState, remove: Sequence[Edit], add: Sequence[Edit]
) -> dict[str, Role]:
    """The custom roles `base` gives and the roles the manifests declare absent, with
    each privilege of `remove` taken away, then each of `add` given. A UserError for an
    edit of a role `base` gives no custom role of."""
    roles = {
        name: Role(name, privileges=frozenset(h.privileges))
        for name, h in base.roles.items()
        if h.type == "custom"
    }
    for role, _ in (*remove, *add):
        if role not in roles:
            raise UserError(f"no custom role {role!r} on the portal or in the manifests")
    roles.update({name: role for name, role in desired.roles.items() if not role.present})
    for role, privilege in remove:
        roles[role] = replace(roles[role], privileges=_held(roles[role]) - {privilege})
    for role, privilege in add:
        roles[role] = replace(roles[role], privileges=_held(roles[role]) | {privilege})
    return roles


def _held(role: Role) -> frozenset[str]:
    return role.privileges or frozenset()
