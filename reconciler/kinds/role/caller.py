"""What a plan must not take from the member that applies it, midway: what the plan's
later calls need. The member's own role change, or new privileges for the custom role it
holds, sent before calls that need what it loses would have those refused.

Decided from the calls the plan keeps (after --target), since those are what is sent.
"""

from __future__ import annotations

from dataclasses import replace

from reconciler import catalog
from reconciler.address_forms import ROLE
from reconciler.operations import OperationName
from reconciler.plan.admins import role_calls
from reconciler.plan.capabilities import ADMIN_ROLE, may_call, requirement
from reconciler.plan.draft import Draft, PendingCall
from reconciler.plan.model import Ref
from reconciler.state import Caller


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
        return role.address.removeprefix(f"{ROLE.head}/")
    names = {r.id: n for n, r in draft.live.roles.items() if r.id}
    return names.get(str(role))


def check_caller_keeps(draft: Draft, caller: Caller, label: str) -> None:
    """Warn when the plan takes from the applying member what its own later calls need:
    those sent after the change would be refused."""
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
        f"this takes from {label} {caller.username} what later calls of this plan"
        f" need ({'; '.join(needed)}): {calls} would be refused if sent after it",
    )
