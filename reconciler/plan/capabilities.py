"""Who may make each planned call: the member that will apply (the Portal's
`spec.applier`, or the signed-in member) against the `Capability` the operations table
gives the call (docs/rules.md §5).

A call the applying member would be refused (403) is a plan error naming the call's
address, its operation and the capability, so an apply never stops halfway on
permissions. A plan made without `spec.applier` by an account that is not the one
applying (a reviewer's read-only account) cannot know who applies: there the refusals of
the signed-in account are warnings. This module is the one place that decides; nothing
is refused on a guess: privileges the portal does not list count as held.

The default administrators are the members assigned the built-in Administrator role
(`org_admin`), every one of them (the vendor's createRole page: "only available to
members assigned the default administrator role"; docs/rules.md §5). A custom role is
never one, whatever administrative privileges it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from reconciler.operations import OPERATIONS, Capability, OperationName
from reconciler.plan.draft import Draft, PendingCall
from reconciler.state import Caller, LiveState

ADMIN_ROLE = "org_admin"
CHANGE_USER_ROLES = "portal:admin:changeUserRoles"
MANAGE_WEBHOOKS = "portal:admin:manageWebhooks"


def is_admin(caller: Caller) -> bool:
    return caller.role == ADMIN_ROLE


def is_default_admin(caller: Caller) -> bool:
    """Assigned the built-in Administrator role: `role` org_admin with no custom role's id
    (a portal reports a custom administrative role's base role as org_admin, beside the
    custom role's `roleId`)."""
    return is_admin(caller) and caller.roleId in (None, ADMIN_ROLE)


def holds(caller: Caller, privilege: str) -> bool:
    """Privileges the portal did not list are not held against the caller."""
    return caller.privileges is None or privilege in caller.privileges


def _guest_admin(caller: Caller, call: PendingCall, live: LiveState) -> bool:
    return is_admin(caller) and call.side != "host"


Check = Callable[[Caller, PendingCall, LiveState], bool]

MAY: Mapping[Capability, Check] = MappingProxyType(
    {
        Capability.ORG_ADMIN: lambda caller, call, live: is_admin(caller),
        Capability.DEFAULT_ADMIN: lambda caller, call, live: is_default_admin(caller),
        Capability.ROLE_ASSIGNER: lambda caller, call, live: (
            is_admin(caller) or holds(caller, CHANGE_USER_ROLES)
        ),
        Capability.HOST_ADMIN: lambda caller, call, live: is_admin(caller) and call.side != "guest",
        Capability.GUEST_ADMIN: _guest_admin,
        Capability.COLLABORATION_GUEST: _guest_admin,
        Capability.WEBHOOK_ADMIN: lambda caller, call, live: (
            is_default_admin(caller) or holds(caller, MANAGE_WEBHOOKS)
        ),
        Capability.TASK_OWNER_OR_ADMIN: lambda caller, call, live: (
            is_admin(caller) or caller.username == call.arguments.get("username")
        ),
        # Writes of the vendor's clients that plans never send (docs/rules.md §D).
        Capability.LICENSE_MANAGER: lambda caller, call, live: (
            is_admin(caller) or holds(caller, "portal:admin:manageLicenses")
        ),
    }
)


@dataclass(frozen=True, slots=True)
class Requirement:
    """The capability a call needs, and why when its parameters raise it above its row's."""

    capability: Capability
    why: str = ""

    @property
    def text(self) -> str:
        return f"{self.capability.value}{f' ({self.why})' if self.why else ''}"


def requirement(call: PendingCall, live: LiveState) -> Requirement:
    """The operation's capability; a role change into or out of org_admin needs a member
    holding that role whoever else may assign roles (the catalog's
    portal:admin:changeUserRoles: "reserved to the administrator role")."""
    if call.operation is OperationName.UPDATE_USER_ROLE:
        member = live.members.get(str(call.params.get("user", "")))
        roles = {call.params.get("role"), member.role if member else None}
        if ADMIN_ROLE in roles and len(roles) == 2:
            why = "it moves a member into or out of org_admin"
            return Requirement(Capability.DEFAULT_ADMIN, why)
    return Requirement(OPERATIONS[call.operation].capability)


def may_call(caller: Caller, call: PendingCall, live: LiveState) -> bool:
    return MAY[requirement(call, live).capability](caller, call, live)


@dataclass(frozen=True, slots=True)
class Applying:
    """The member whose capabilities a plan predicts, and how sure it is that this member
    applies: `binding` refusals are errors, the others warnings."""

    caller: Caller
    label: str  # "the signed-in user admin2", "spec.applier admin"
    binding: bool


def applying_member(draft: Draft, signed_in_applies: bool) -> Applying | None:
    """Who the plan's calls will be sent as: the signed-in member when it applies now
    (`apply`), else the member `spec.applier` names, else, unsure, the signed-in one."""
    signed_in = draft.live.portal.caller
    named = draft.desired.portal.applier
    if signed_in_applies:
        if named and signed_in is not None and signed_in.username != named:
            draft.warn(
                "Portal",
                f"spec.applier names {named}, but {signed_in.username} is signed in to apply;"
                " the calls are checked against what it may do",
            )
        return Applying(signed_in, "the signed-in user", True) if signed_in else None
    if named:
        if draft.live.applier is None:
            draft.error(
                "Portal",
                f"spec.applier names {named}, who is not a member of the portal"
                " (the member listing does not hold it)",
            )
            return None
        return Applying(draft.live.applier, "spec.applier", True)
    return Applying(signed_in, "the signed-in user", False) if signed_in else None


def describe(who: Applying, live: LiveState) -> str:
    """ "the signed-in user carol (org_publisher)", "spec.applier ops (Ops)"."""
    caller = who.caller
    custom = {role.id: name for name, role in live.roles.items() if role.id}
    role = custom.get(caller.roleId or "") or caller.role or "role unknown"
    return f"{who.label} {caller.username} ({role})"


def refused_calls(caller: Caller, draft: Draft) -> dict[tuple[str, str], list[str]]:
    """The operations `caller` may not make, by address and the capability they need."""
    refused: dict[tuple[str, str], list[str]] = {}
    for call in draft.calls.values():
        if not may_call(caller, call, draft.live):
            needed = requirement(call, draft.live).text
            refused.setdefault((call.address, needed), []).append(str(call.operation))
    return refused


def check_capabilities(draft: Draft, who: Applying) -> None:
    """A problem per address and capability for the calls the applying member may not
    make: an error when it is the member that applies, else a warning saying so."""
    described = describe(who, draft.live)
    refused = refused_calls(who.caller, draft)
    for (address, needed), operations in sorted(refused.items()):
        names = list(dict.fromkeys(operations))
        verb, them = ("needs", "it") if len(names) == 1 else ("need", "them")
        message = f"{', '.join(names)} {verb} {needed}; {described} is not"
        if who.binding:
            draft.error(address, f"{message}, so the portal would refuse {them} (403)")
        else:
            draft.warn(address, f"{message}: the account that applies must be")
    if refused and not who.binding:
        count = sum(len(operations) for operations in refused.values())
        draft.warn(
            "Portal",
            f"{described} may not make {count} of this plan's calls: name the member that"
            " applies in the Portal's spec.applier, and the plan checks them for it",
        )
