"""Who may call a write (the operations table's `Capability`) or make a read (the reads
table's `ReadAccess`), checked by the dispatcher before the handler runs, and the release
gates of the operation and its parameters.

Host and guest administrators depend on the collaboration addressed, and a task run's
caller on the task's owner, so those checks look the resource up (a missing one is 404,
as the handler would answer).
"""

from __future__ import annotations

from collections.abc import Callable

from orgctl_service import collaborations, tasks
from orgctl_service.auth import (
    holds,
    is_admin,
    require_admin,
    require_default_admin,
    require_webhook_admin,
)
from orgctl_service.context import Ctx
from orgctl_service.errors import forbidden, unavailable
from orgctl_service.rules import check_portal_id
from orgctl_service.world import portal_platform
from reconciler.catalog import feature_problem
from reconciler.operations import Capability, Operation, ParameterGate, Read


def check_write(ctx: Ctx, operation: Operation) -> None:
    """Refuse the call unless it exists on this portal's release and the caller holds the
    operation's capability; then refuse any parameter the release lacks."""
    check_portal_id(ctx)
    platform = portal_platform(ctx.portal)
    problem = operation.problem(platform)
    if problem:
        raise unavailable(f"This operation is not available: {problem}")
    CHECKS[operation.capability](ctx)
    for name, gate in operation.parameters.items():
        if _sent(ctx, name, gate):
            reason = feature_problem(gate.feature, platform)
            if reason:
                raise unavailable(f"This parameter is not available: {reason}")


def check_read(ctx: Ctx, read: Read) -> None:
    """Refuse the read (403) unless the caller may make it: an organization administrator,
    a holder of one of its privileges, or the member it addresses reading its own."""
    access = read.access
    if access.anyone or access.profiles or is_admin(ctx.user):
        return
    if access.own and ctx.args.get(access.own) == ctx.user["username"]:
        return
    if any(holds(ctx.user, ctx.portal, privilege) for privilege in access.privileges):
        return
    raise forbidden(f"You do not have permissions to access this resource: only {access.text} may.")


def _sent(ctx: Ctx, name: str, gate: ParameterGate) -> bool:
    if gate.when_true:
        return ctx.params.boolean(name) is True
    return ctx.params.given(name)


def _role_assigner(ctx: Ctx) -> None:
    caller = ctx.user
    if not (is_admin(caller) or holds(caller, ctx.portal, "portal:admin:changeUserRoles")):
        raise forbidden(
            "You do not have permissions to perform this operation: only organization"
            " administrators or holders of portal:admin:changeUserRoles may."
        )


def _host_admin(ctx: Ctx) -> None:
    collaboration = collaborations.addressed(ctx)
    if ctx.portal["id"] != collaboration["hostPortalId"]:
        raise forbidden(
            "Only the administrator of the collaboration's host portal may call this operation"
        )
    require_admin(ctx, "an administrator of the host portal")


def _guest_admin(ctx: Ctx) -> None:
    collaboration = collaborations.addressed(ctx)
    if ctx.portal["id"] not in collaboration["guests"]:
        raise forbidden(
            "Only the administrator of a guest portal of the collaboration may call this operation"
        )
    require_admin(ctx, "an administrator of a guest portal")


def _task_owner_or_admin(ctx: Ctx) -> None:
    task = tasks.addressed(ctx)
    if ctx.user["username"] != task["owner"] and not is_admin(ctx.user):
        raise forbidden(
            "You do not have permissions to perform this operation: only the task owner or"
            " an organization administrator may."
        )


def _holder_or_admin(privilege: str, who: str) -> Callable[[Ctx], None]:
    """An organization administrator, or a member holding `privilege`."""

    def check(ctx: Ctx) -> None:
        if not (is_admin(ctx.user) or holds(ctx.user, ctx.portal, privilege)):
            raise forbidden(
                f"You do not have permissions to perform this operation: only {who} may."
            )

    return check


CHECKS: dict[Capability, Callable[[Ctx], None]] = {
    Capability.ORG_ADMIN: require_admin,
    Capability.DEFAULT_ADMIN: require_default_admin,
    Capability.ROLE_ASSIGNER: _role_assigner,
    Capability.HOST_ADMIN: _host_admin,
    Capability.GUEST_ADMIN: _guest_admin,
    Capability.COLLABORATION_GUEST: _guest_admin,
    Capability.WEBHOOK_ADMIN: require_webhook_admin,
    Capability.TASK_OWNER_OR_ADMIN: _task_owner_or_admin,
    Capability.LICENSE_MANAGER: _holder_or_admin(
        "portal:admin:manageLicenses", Capability.LICENSE_MANAGER.value
    ),
}
