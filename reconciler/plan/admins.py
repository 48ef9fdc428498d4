"""What a plan must not do to the portal's administrators: leave it without a default
administrator, or take from the signed-in member, midway, what the plan's later calls
need.

The default administrators are the members assigned the built-in Administrator role
(`org_admin`), every one of them (docs/rules.md §5). Moving one of several out of it is
an ordinary role change, which only a member holding the role may make
(`capabilities.requirement`); the last one is what the portal cannot lose (ORG_1090),
whichever member it is: the shipped policy default-administrator says so
(reconciler/kinds/policy.py), on the calls `role_calls` finds.

Decided from the calls the plan keeps (after --target), since those are what is sent.
"""

from __future__ import annotations

from dataclasses import replace

from reconciler import catalog
from reconciler.address_forms import ROLE
from reconciler.operations import OperationName
from reconciler.plan.capabilities import ADMIN_ROLE, Applying, may_call, requirement
from reconciler.plan.draft import Draft, PendingCall
from reconciler.plan.model import Ref
from reconciler.state import Caller, LiveState


def default_admins(live: LiveState) -> frozenset[str]:
    """The members assigned the built-in Administrator role: the member listing names a
    custom role by its name, so `org_admin` there is the built-in role itself."""
    return frozenset(username for username, m in live.members.items() if m.role == ADMIN_ROLE)


def role_calls(draft: Draft) -> dict[str, PendingCall]:
    """The plan's updateUserRole calls by the member they move."""
    return {
        str(call.params.get("user", "")): call
        for call in draft.calls.values()
        if call.operation is OperationName.UPDATE_USER_ROLE
    }


def moved_to(call: PendingCall) -> str | None:
    """The role an updateUserRole call gives: a built-in role by its name; a custom one
    (a reference or an id) is never org_admin, so its name is not needed here."""
    role = call.params.get("role")
    if isinstance(role, str):
        return role
    return role.address.removeprefix("Role/") if isinstance(role, Ref) else None


def _caller_after(draft: Draft, caller: Caller) -> tuple[Caller, PendingCall] | None:
    """The signed-in member as the plan leaves it, and the call that changes it: its own
    role change, or new privileges for the custom role it holds (None: unchanged)."""
    move = role_calls(draft).get(caller.username)
    if move is not None:
        role = move.params.get("role")
        if isinstance(role, str) and role in catalog.BUILTIN_ROLES:
            # org_admin holds every privilege; the other built-in roles no administrative one.
            privileges = None if role == ADMIN_ROLE else frozenset[str]()
            return replace(caller, role=role, roleId=role, privileges=privileges), move
        name = _role_name(draft, role)
        held = draft.final_privileges(name) if name else None
        return replace(caller, role="org_user", roleId=None, privileges=held), move
    names = {r.id: n for n, r in draft.live.roles.items() if r.id}
    own = names.get(caller.roleId or "")
    for call in draft.calls.values():
        if call.operation is OperationName.SET_PRIVILEGES and call.address == ROLE.of(own or ""):
            return replace(caller, privileges=draft.final_privileges(own or "")), call
    return None


def _role_name(draft: Draft, role: object) -> str | None:
    if isinstance(role, Ref):
        return role.address.removeprefix("Role/")
    names = {r.id: n for n, r in draft.live.roles.items() if r.id}
    return names.get(str(role))


def check_caller_keeps(draft: Draft, who: Applying) -> None:
    """Warn when the plan takes from the applying member what its own later calls need:
    those sent after the change would be refused."""
    caller = who.caller
    after = _caller_after(draft, caller)
    if after is None:
        return
    changed, change = after
    lost = [
        call
        for call in draft.calls.values()
        if call.key != change.key
        and call.phase >= change.phase
        and may_call(caller, call, draft.live)
        and not may_call(changed, call, draft.live)
    ]
    if not lost:
        return
    needed = sorted({requirement(call, draft.live).capability.value for call in lost})
    calls = ", ".join(f"{call.operation} {call.address}" for call in lost)
    draft.warn(
        change.address,
        f"this takes from {who.label} {caller.username} what later calls of this plan"
        f" need ({'; '.join(needed)}): {calls} would be refused if sent after it",
    )
