"""Custom roles: create, describe, rename, set privileges; delete those declared absent.

Roles the manifests do not declare are left alone unless the Portal asks to prune them
(`spec.pruneRoles`), but for `spec.keepRoles`. A role renamed in place (previousNames) is
declared: `reconciler.kinds.role.renames` files it under its new name first. The names members
may be assigned resolve here too, since a role being created is known only by placeholder.
"""

from __future__ import annotations

import json
from typing import Any

from reconciler import catalog
from reconciler.address_forms import ROLE
from reconciler.names import ROLE_NAMES, Spellings, did_you_mean
from reconciler.operations import OperationName, call_key
from reconciler.plan.diff import created, deleted, diff_record
from reconciler.plan.draft import Draft
from reconciler.plan.model import Action, Change, Ref, Value
from reconciler.state import Role


def role_address(name: str) -> str:
    return ROLE.of(name)


def privileges_param(privileges: frozenset[str]) -> str:
    return json.dumps({"privileges": sorted(privileges)}, separators=(",", ":"))


def _fields(role: Role) -> dict[str, Any]:
    return {"description": role.description, "privileges": role.privileges}


def plan_roles(draft: Draft) -> None:
    live = ROLE_NAMES.spelled(draft.live.roles)
    for name in sorted(draft.desired.roles):
        want = draft.desired.roles[name]
        have = draft.live.roles.get(name)
        if not want.present:
            continue  # deletions wait until member reassignments are known
        if have is None:
            # Created as declared: ignoreChanges spares the fields of a role that exists.
            declared = draft.desired.declared
            _create(draft, declared.roles.get(name, want) if declared else want, live)
        else:
            _update(draft, want, have)


def _create(draft: Draft, want: Role, live: Spellings) -> None:
    address = role_address(want.name)
    twin = next((found for found in live.of(want.name) if found != want.name), None)
    if twin is not None:
        draft.error(
            address,
            f"the portal has a role {twin!r}; role names are unique regardless of case, so "
            f"creating {want.name!r} would be refused (ROLE_1001): declare it as {twin!r},"
            f" or rename it in place with metadata.previousNames: [{twin}]",
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


def _update(draft: Draft, want: Role, have: Role) -> None:
    address = role_address(want.name)
    change = renamed(address, have, want) or diff_record(address, _fields(have), _fields(want))
    if change is None:
        return
    if not have.editable:
        draft.error(address, "this role is not editable on the portal; it cannot be changed")
        return
    draft.changes.append(change)
    ids = {"roleId": have.id or ""}
    assert change.after is not None
    if "description" in change.after or "name" in change.after:
        description = want.description if want.description is not None else have.description
        draft.call(
            address,
            OperationName.UPDATE_ROLE,
            {"name": want.name, "description": description or ""},
            ids=ids,
        )
    if "privileges" in change.after and want.privileges is not None:
        draft.call(
            address,
            OperationName.SET_PRIVILEGES,
            {"privileges": privileges_param(want.privileges)},
            ids=ids,
        )


def renamed(address: str, have: Role, want: Role) -> Change | None:
    """The update that renames live role `have` (filed under the declared name by
    `reconciler.kinds.role.renames`) to `want`'s name, with any other field that differs; None
    when the names are the same."""
    if have.name == want.name:
        return None
    change = diff_record(address, _fields(have), _fields(want))
    before = {"name": have.name, **((change.before or {}) if change else {})}
    after = {"name": want.name, **((change.after or {}) if change else {})}
    return Change(address, Action.UPDATE, before, after, renamedFrom=have.name)


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


def plan_role_deletions(draft: Draft) -> None:
    """Delete roles declared absent and, with the Portal's pruneRoles, the custom roles
    no manifest declares, each after every member has been moved off it
    (`draft.final_roles`: each live member's role after this plan)."""
    for name in sorted(draft.desired.roles):
        have = draft.live.roles.get(name)
        if not draft.desired.roles[name].present and have is not None:
            _delete(draft, have, name, "assign them another role in a Members document")
    undeclared = undeclared_roles(draft)
    _check_keeps(draft)
    if draft.desired.portal.pruneRoles:
        for name in undeclared:
            _delete(
                draft,
                draft.live.roles[name],
                name,
                "move them to another role in a Members document, or keep the role"
                " (the Portal's spec.keepRoles)",
            )
    else:
        draft.undeclared_roles = tuple(undeclared)


def undeclared_roles(draft: Draft) -> list[str]:
    """The live custom roles that no Role document declares (by name or previous name,
    in any case), other than the Portal's keepRoles and the pre-built roles."""
    portal = draft.desired.portal
    previous = draft.desired.previousNames
    declared = ROLE_NAMES.keys(
        spelled for name in draft.desired.roles for spelled in (name, *previous.get(name, ()))
    )
    # One set of the names no prune touches, built once: a union per live role made
    # this loop grow with the square of the role count.
    spared = declared | ROLE_NAMES.keys(portal.keepRoles)
    prebuilt = {role.id for role in catalog.PREBUILT_ROLES}
    return sorted(
        name
        for name, role in draft.live.roles.items()
        if role.editable
        and role.id not in prebuilt
        and ROLE_NAMES.key(name) not in spared
        and role.id not in portal.keepRoles
    )


def _check_keeps(draft: Draft) -> None:
    """A keepRoles entry that names no live or declared role is likely misspelt, and the
    role it meant to keep would be pruned: with pruneRoles an error (nothing is deleted
    that the Portal meant to keep), otherwise a warning; each with a did-you-mean."""
    live = draft.live.roles.values()
    ids = {role.id for role in live if role.id}
    names = {role.name for role in live} | set(draft.desired.roles)
    known = ROLE_NAMES.spelled(names)
    prune = draft.desired.portal.pruneRoles
    for kept in sorted(draft.desired.portal.keepRoles):
        if kept in ids or known.of(kept):
            continue
        message = f"keepRoles: {kept!r} names no role on the portal or in the manifests"
        hint = did_you_mean(kept, names, ROLE_NAMES)
        if prune:
            draft.error("Portal", f"{message}{hint}; correct it, or drop it from keepRoles")
        else:
            draft.warn("Portal", f"{message}{hint}")


def _delete(draft: Draft, have: Role, name: str, remedy: str) -> None:
    address = role_address(name)
    holders = sorted(
        user
        for user, member in draft.live.members.items()
        if member.role == name and draft.final_roles.get(user) == name
    )
    if holders:
        draft.error(address, f"cannot delete: still assigned to {', '.join(holders)}; {remedy}")
        return
    # A role declared absent in another case than the portal's: the reader sees which.
    spelled = {"name": have.name} if have.name != name else {}
    draft.changes.append(deleted(address, {**spelled, **_fields(have)}))
    # It waits for its members' moves off it, which the Members kind orders (its
    # `plan_last`, after this one): the portal refuses to delete a role still assigned.
    draft.call(address, OperationName.DELETE_ROLE, {}, ids={"roleId": have.id or ""})
