"""Custom roles: create, describe, set privileges; delete only those declared absent.

Roles the manifests do not declare are left alone (no pruning). The names members may be
assigned resolve here too, since a role being created is known only by placeholder.
"""

from __future__ import annotations

import json
from typing import Any

from reconciler import catalog
from reconciler.kinds.forms import MEMBER, ROLE
from reconciler.operations import OperationName, call_key
from reconciler.plan.diff import created, deleted, diff_record
from reconciler.plan.draft import Draft
from reconciler.plan.model import Ref, Value
from reconciler.state import Role


def role_address(name: str) -> str:
    return ROLE.of(name)


def privileges_param(privileges: frozenset[str]) -> str:
    return json.dumps({"privileges": sorted(privileges)}, separators=(",", ":"))


def _fields(role: Role) -> dict[str, Any]:
    return {"description": role.description, "privileges": role.privileges}


def plan_roles(draft: Draft) -> None:
    for name in sorted(draft.desired.roles):
        want = draft.desired.roles[name]
        have = draft.live.roles.get(name)
        if not want.present:
            continue  # deletions wait until member reassignments are known
        if have is None:
            # Created as declared: ignoreChanges spares the fields of a role that exists.
            declared = draft.desired.declared
            _create(draft, declared.roles.get(name, want) if declared else want)
        else:
            _update(draft, want, have)


def _create(draft: Draft, want: Role) -> None:
    address = role_address(want.name)
    twin = _live_twin(draft, want.name)
    if twin is not None:
        draft.error(
            address,
            f"the portal has a role {twin!r}; role names are unique regardless of case, so "
            f"creating {want.name!r} would be refused (ROLE_1001): declare it as {twin!r}",
        )
        return
    draft.changes.append(created(address, _fields(want)))
    params = {"name": want.name}
    if want.description is not None:
        params["description"] = want.description
    create = draft.call(address, OperationName.CREATE_ROLE, params)
    if want.privileges:
        draft.call(
            address,
            OperationName.SET_PRIVILEGES,
            {"privileges": privileges_param(want.privileges)},
            ids={"roleId": Ref(address)},
            after=(create,),
        )


def _live_twin(draft: Draft, name: str) -> str | None:
    """A live role whose name differs from `name` only in case."""
    folded = name.casefold()
    twins = (live for live in draft.live.roles if live.casefold() == folded and live != name)
    return next(twins, None)


def _update(draft: Draft, want: Role, have: Role) -> None:
    address = role_address(want.name)
    change = diff_record(address, _fields(have), _fields(want))
    if change is None:
        return
    if not have.editable:
        draft.error(address, "this role is not editable on the portal; it cannot be changed")
        return
    draft.changes.append(change)
    ids = {"roleId": have.id or ""}
    assert change.after is not None
    if "description" in change.after:
        draft.call(
            address,
            OperationName.UPDATE_ROLE,
            {"name": want.name, "description": want.description or ""},
            ids=ids,
        )
    if "privileges" in change.after and want.privileges is not None:
        draft.call(
            address,
            OperationName.SET_PRIVILEGES,
            {"privileges": privileges_param(want.privileges)},
            ids=ids,
        )


def role_reference(draft: Draft, name: str) -> Value | None:
    """The `role` parameter of updateUserRole for role `name`, or None when it exists
    nowhere (the caller reports it)."""
    if name in catalog.BUILTIN_ROLES:
        return name
    declared = draft.desired.roles.get(name)
    if declared is not None and not declared.present:
        return None
    live = draft.live.roles.get(name)
    if live is not None:
        return live.id
    if declared is not None:
        return Ref(role_address(name))
    return None


def role_creation(name: str) -> str:
    """Key of the createRole call an assignment of role `name` waits for."""
    return call_key(OperationName.CREATE_ROLE, role_address(name))


def final_privileges(draft: Draft, name: str) -> frozenset[str] | None:
    declared = draft.desired.roles.get(name)
    if declared is not None and declared.privileges is not None:
        return declared.privileges
    live = draft.live.roles.get(name)
    return live.privileges if live else None


def plan_role_deletions(draft: Draft) -> None:
    """Delete roles declared absent, after every member has been moved off them
    (`draft.final_roles`: each live member's role after this plan)."""
    for name in sorted(draft.desired.roles):
        have = draft.live.roles.get(name)
        if draft.desired.roles[name].present or have is None:
            continue
        address = role_address(name)
        holders = sorted(
            user
            for user, member in draft.live.members.items()
            if member.role == name and draft.final_roles.get(user) == name
        )
        if holders:
            draft.error(
                address,
                f"cannot delete: still assigned to {', '.join(holders)}; "
                "assign them another role in a Members document",
            )
            continue
        moved = tuple(
            call_key(OperationName.UPDATE_USER_ROLE, MEMBER.of(user))
            for user in sorted(draft.live.members)
            if draft.live.members[user].role == name
        )
        draft.changes.append(deleted(address, _fields(have)))
        draft.call(
            address,
            OperationName.DELETE_ROLE,
            {},
            ids={"roleId": have.id or ""},
            after=tuple(k for k in moved if k in draft.calls),
        )
