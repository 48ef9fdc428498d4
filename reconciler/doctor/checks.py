"""The checks of `orgctl doctor`, in the order they depend on each other: the portal
answers; orgctl signs in and reads it as plan does (through the readers themselves,
observed: `recording`); what it runs is what the manifests declare; each read had the
keys and types orgctl uses; its privileges are orgctl's catalog's; the member that
applies may make the calls a plan of the manifests needs and take the apply lock.

Nothing is written: the plan is computed and looked at, never sent.
"""

from __future__ import annotations

from reconciler.doctor.findings import Check, Report, Severity
from reconciler.doctor.lock import lock_findings
from reconciler.doctor.needs import refused_writes
from reconciler.doctor.privileges import privilege_findings
from reconciler.doctor.recording import RecordingClient
from reconciler.doctor.wire import wire_findings
from reconciler.errors import UserError
from reconciler.live.errors import AuthError, ForbiddenError, NotFoundError, ServiceError
from reconciler.live.reader import Scope, read_live
from reconciler.operations import ReadName
from reconciler.plan.capabilities import applying_member, describe
from reconciler.plan.draft import Draft
from reconciler.plan.model import PlanProblem
from reconciler.plan.planner import build_plan
from reconciler.state import Caller, DesiredState, LiveState

URL_FIX = (
    "check the URL (the portal's sharing REST root, ending in /sharing/rest) and that this"
    " machine reaches it"
)


async def examine(client: RecordingClient, desired: DesiredState | None, report: Report) -> None:
    """Every check that the earlier ones let run, its findings added to `report`."""
    if not await _reachable(client, report):
        return
    live = await _read(client, desired, report)
    if live is None:
        return
    report.release = str(live.portal.platform)
    _signed_in(live, report)
    if desired is not None:
        _release(desired, live, report)
    report.extend(wire_findings(client.observations))
    _unread(live, report)
    extra = desired.portal.extraPrivileges if desired is not None else frozenset()
    report.extend(privilege_findings(live, extra))
    applier = _plan(desired, live, client, report) if desired is not None else _signed(live)
    report.extend(await lock_findings(client, live, applier))


async def _reachable(client: RecordingClient, report: Report) -> bool:
    """The sharing REST root answers without a token with the portal's REST version (the
    vendor's Root resource: developers.arcgis.com/rest/users-groups-and-items/root.htm)."""
    try:
        root = await client.unsigned_json(ReadName.ROOT)
    except NotFoundError:  # a gateway may pass on only the paths below it: the reads decide
        report.add(Check.REACH, Severity.NOTE, f"{client.root} (the root) is not found")
        return True
    except UserError as failed:
        report.add(Check.REACH, Severity.BLOCKER, f"the portal does not answer: {failed}", URL_FIX)
        return False
    version = root.get("currentVersion")
    rest = f" (REST API {version})" if isinstance(version, str | int | float) else ""
    report.add(Check.REACH, Severity.OK, f"the portal answers at {client.root}{rest}")
    return True


async def _read(
    client: RecordingClient, desired: DesiredState | None, report: Report
) -> LiveState | None:
    """The portal as plan reads it for the manifests (the whole of it, without them)."""
    scope = Scope.DESIRED if desired is not None else Scope.EVERYTHING
    try:
        return await read_live(client, desired, scope)
    except AuthError as refused:
        report.add(
            Check.SIGN_IN,
            Severity.BLOCKER,
            str(refused),
            "set the credentials the Portal's spec.auth names (ORGCTL_<NAME>_* or"
            " ORGCTL_*), for a member of this portal, and check the URL",
        )
    except ForbiddenError as refused:
        report.add(
            Check.CAPABILITIES,
            Severity.BLOCKER,
            f"a read plan makes was refused: {refused}",
            "sign in as an organization administrator, or as a member holding the"
            " privilege the message names",
        )
    except ServiceError as failed:
        report.add(Check.READS, Severity.BLOCKER, f"a read plan makes failed: {failed}", URL_FIX)
    except UserError as failed:
        report.add(
            Check.READS, Severity.BLOCKER, f"the portal could not be read: {failed}", URL_FIX
        )
    return None


def _signed_in(live: LiveState, report: Report) -> None:
    caller = live.portal.caller
    if caller is None:
        report.add(
            Check.SIGN_IN,
            Severity.DIFFERENCE,
            # The vendor's portals/self is "the view of the portal as seen by the current
            # user, whether anonymous or signed in" (users-groups-and-items/portal-self.htm).
            "portals/self names no signed-in member (an anonymous view): what the account"
            " may do is not checked",
            "sign in with a member's credentials (not an application's token)",
        )
        return
    role = caller.roleId or caller.role or "role not told"
    report.add(Check.SIGN_IN, Severity.OK, f"signed in as {caller.username} ({role})")


def _release(desired: DesiredState, live: LiveState, report: Report) -> None:
    declared, actual = desired.portal.platform, live.portal.platform
    source = desired.sources.get("Portal")
    where = f"the Portal{f' ({source})' if source else ''}"
    if declared.deployment != actual.deployment:
        report.add(
            Check.RELEASE,
            Severity.BLOCKER,
            f"{where} declares {declared}, but the portal runs {actual}",
            f"set spec.deployment: {actual.deployment} and spec.version: {actual.release},"
            " then validate again",
        )
    elif declared != actual:
        report.add(
            Check.RELEASE,
            Severity.DIFFERENCE,
            f"{where} declares {declared}, but the portal runs {actual}: the manifests are"
            " validated against another release than the portal's",
            f'set spec.version: "{actual.release}"',
        )
    else:
        report.add(Check.RELEASE, Severity.OK, f"the portal runs {actual}, as declared")


def _unread(live: LiveState, report: Report) -> None:
    for part, why in sorted(live.unread.items()):
        report.add(
            Check.CAPABILITIES,
            Severity.DIFFERENCE,
            f"{part} could not be read by the signed-in account ({why}): plan cannot compare it",
            "sign in as an account that may read it (README: a reviewer's read-only account)",
        )


def _plan(
    desired: DesiredState, live: LiveState, client: RecordingClient, report: Report
) -> tuple[Caller, str] | None:
    """The plan of the manifests, looked at: its errors (the calls the member that
    applies may not make among them) and who that member is. The signed-in account
    applies unless spec.applier names another."""
    signed_in_applies = desired.portal.applier is None
    plan = build_plan(
        desired,
        live,
        allow_deletes=True,
        now=client.server_clock,
        signed_in_applies=signed_in_applies,
    )
    who = applying_member(Draft(desired, live, 0), signed_in_applies)
    if who is not None:
        report.add(
            Check.CAPABILITIES,
            Severity.OK,
            f"the plan's {len(plan.calls)} call(s) are checked against {describe(who, live)}",
        )
    for problem in plan.errors:
        report.add(*_blocker(problem, live))
    for problem in plan.warnings:
        report.add(Check.PLAN, Severity.NOTE, str(problem))
    if who is None:
        return None
    planned = {str(call.operation) for call in plan.calls}
    report.extend(refused_writes(desired, live, (who.caller, who.label), planned))
    return who.caller, who.label


def _blocker(problem: PlanProblem, live: LiveState) -> tuple[Check, Severity, str, str]:
    """A plan error as the check it belongs to: a call the member that applies may not
    make, a resource whose answer orgctl cannot read, or another reason the plan gives."""
    if "(403)" in problem.message:
        fix = "apply as a member who may make these calls (the Portal's spec.applier names it)"
        return Check.CAPABILITIES, Severity.BLOCKER, str(problem), fix
    if problem.address in live.unreadable:
        fix = "the portal answered a value orgctl cannot read: see the reads above"
        return Check.READS, Severity.BLOCKER, str(problem), fix
    fix = "see `orgctl plan`: the manifests or the portal must change first"
    return Check.PLAN, Severity.BLOCKER, str(problem), fix


def _signed(live: LiveState) -> tuple[Caller, str] | None:
    caller = live.portal.caller
    return (caller, "the signed-in user") if caller is not None else None
