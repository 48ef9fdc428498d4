"""What a plan must not do to the portal's administrators: leave it without a default
administrator.

The default administrators are the members assigned the built-in Administrator role
(`org_admin`), every one of them (docs/rules.md §5). Moving one of several out of it is
an ordinary role change, which only a member holding the role may make
(`capabilities.requirement`); the last one is what the portal cannot lose (ORG_1090),
whichever member it is: the shipped policy default-administrator says so
(reconciler/kinds/policy.py), on the calls `role_calls` finds. What the plan must not take
from the member that applies it is the role kind's check (reconciler/kinds/role/caller.py).
"""

from __future__ import annotations

from reconciler.operations import OperationName
from reconciler.plan.capabilities import ADMIN_ROLE
from reconciler.plan.draft import Draft, PendingCall
from reconciler.state import LiveState


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
