"""Collaborations: workspace info (host), group links and schedules (guests), invitation
invalidation (host), deletion (host) or leaving (guest).

Whether this portal hosts a collaboration is read live: it is the host when the
collaboration's host portal id is its own id (docs/rules.md §5 decides who may call what).
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from reconciler.address_forms import COLLABORATION, INVITATION, WORKSPACE
from reconciler.kinds.collaboration.slots import DECLARED, LIVE, side_of
from reconciler.operations import OPERATIONS, OperationName
from reconciler.plan.diff import deleted, diff_record
from reconciler.plan.draft import Draft
from reconciler.plan.model import Action, Change, Value
from reconciler.plan.normalize import form_value
from reconciler.state import Collaboration, GroupLink, Schedule, Side, Workspace, managed_fields

INFO_FIELDS = (
    "name",
    "description",
    "maxItemSizeInMB",
    "maxReplicationPackageSizeInMB",
    "copyByRefIfCopyFail",
)
GUEST_FIELDS = ("groupLink", "schedule")
GROUP_LINK_FIELDS = tuple(f.name for f in fields(GroupLink))
SCHEDULE_FIELDS = ("startTime", "interval", "repeatCount")
HOUR_MS = 3_600_000


def plan_collaborations(draft: Draft) -> None:
    if COLLABORATION.every() in draft.live.unread:
        return  # not read: `report_not_compared` says so for each declared one
    declared = draft.desired.get(DECLARED)
    for cid in sorted(declared):
        want = declared[cid]
        have = draft.live.get(LIVE).get(cid)
        address = COLLABORATION.of(cid)
        if have is None:
            if want.present:
                draft.error(address, "no such collaboration on the portal")
            continue
        side = side_of(have, draft.live)
        host = side == "host"
        if not want.present:
            _leave(draft, address, have, side)
            continue
        _plan_invitations(draft, want, have, host)
        for wid in sorted(want.workspaces):
            live_ws = have.workspaces.get(wid)
            ws_address = WORKSPACE.of(cid, wid)
            if live_ws is None:
                draft.error(ws_address, f"no such workspace in collaboration {cid}")
                continue
            wanted = _as_declared(draft, cid, want.workspaces[wid], live_ws)
            _plan_workspace(draft, ws_address, cid, wanted, live_ws, side)


def _as_declared(draft: Draft, cid: str, want: Workspace, have: Workspace) -> Workspace:
    """A schedule the portal has no job for is created as declared, with the fields that
    ignoreChanges spares in a live job: a finite job's declared startTime also tells
    whether it has completed (and must not be created again)."""
    declared = draft.desired.declared
    if want.schedule is None or have.schedule is not None or declared is None:
        return want
    full = declared.get(DECLARED).get(cid)
    workspace = full.workspaces.get(want.id) if full is not None else None
    if workspace is None or workspace.schedule is None:
        return want
    return replace(want, schedule=workspace.schedule)


def _leave(draft: Draft, address: str, have: Collaboration, side: Side) -> None:
    draft.changes.append(deleted(address, {"name": have.name}))
    host = side == "host"
    operation = OperationName.DELETE_COLLABORATION if host else OperationName.REMOVE_PARTICIPATION
    draft.call(address, operation, {}, ids={"collaborationId": have.id}, side=side)


def _plan_invitations(draft: Draft, want: Collaboration, have: Collaboration, host: bool) -> None:
    if want.invalidInvitations and not host:
        draft.error(
            COLLABORATION.of(want.id),
            "invalidInvitations can only be changed by the collaboration host; "
            "this portal is a guest",
        )
        return
    for iid in sorted(want.invalidInvitations):
        address = INVITATION.of(want.id, iid)
        status = have.invitations.get(iid)
        if status is None:
            draft.error(address, f"no such invitation in collaboration {want.id}")
        elif status != "invalidated":
            draft.changes.append(
                Change(address, Action.UPDATE, {"status": status}, {"status": "invalidated"})
            )
            draft.call(
                address,
                OperationName.INVALIDATE_INVITATION,
                {},
                ids={"collaborationId": want.id, "invitationId": iid},
                side="host",
            )


def _side_errors(draft: Draft, address: str, want: Workspace, host: bool) -> bool:
    """Report each declared field this side may not change; True when there was one."""
    wrong = GUEST_FIELDS if host else INFO_FIELDS
    declared = [name for name in wrong if getattr(want, name) is not None]
    for name in declared:
        if host:
            message = "can only be changed by a collaboration guest; this portal is the host"
        else:
            message = "can only be changed by the collaboration host; this portal is a guest"
        draft.error(address, f"{name} {message}")
    return bool(declared)


def _plan_workspace(
    draft: Draft, address: str, cid: str, want: Workspace, have: Workspace, side: Side
) -> None:
    if _side_errors(draft, address, want, side == "host"):
        return
    desired: dict[str, Any] = {name: getattr(want, name) for name in INFO_FIELDS}
    live: dict[str, Any] = {name: getattr(have, name) for name in INFO_FIELDS}
    if want.groupLink is not None:
        desired["groupLink"] = managed_fields(want.groupLink) or None
        live["groupLink"] = _same_fields(have.groupLink, desired["groupLink"])
    if want.schedule is not None and not _complete(want.schedule, have.schedule, draft.now_ms):
        desired["schedule"] = _schedule_fields(want.schedule) or None
        live["schedule"] = _same_fields(have.schedule, desired["schedule"])
    change = diff_record(address, live, desired)
    if change is None:
        return
    draft.changes.append(change)
    ids = {"collaborationId": cid, "workspaceId": want.id}
    changed = change.after or {}
    if any(name in changed for name in INFO_FIELDS):
        # Every declared info field is sent, so one call states the whole intent.
        info: dict[str, Value] = {
            n: form_value(desired[n]) for n in INFO_FIELDS if desired[n] is not None
        }
        draft.call(address, OperationName.UPDATE_INFO, info, ids=ids, side=side)
    if "groupLink" in changed and want.groupLink is not None:
        operation = OperationName.UPDATE_GROUP_LINK
        params = _completed(draft, operation, want.groupLink, have.groupLink, GROUP_LINK_FIELDS)
        draft.call(address, operation, params, ids=ids, side=side)
    if "schedule" in changed and want.schedule is not None:
        params = _completed(
            draft, OperationName.UPDATE_SCHEDULE, want.schedule, have.schedule, SCHEDULE_FIELDS
        )
        draft.call(address, OperationName.UPDATE_SCHEDULE, params, ids=ids, side=side)


def _same_fields(have: Any, wanted: dict[str, Any] | None) -> dict[str, Any] | None:
    """The live record's values of exactly the managed fields (None: no live record)."""
    if have is None or wanted is None:
        return None
    return {name: getattr(have, name) for name in wanted}


def _schedule_fields(schedule: Schedule) -> dict[str, Any]:
    return {n: getattr(schedule, n) for n in SCHEDULE_FIELDS if getattr(schedule, n) is not None}


def _completed(
    draft: Draft, operation: OperationName, want: Any, have: Any, names: tuple[str, ...]
) -> dict[str, Value]:
    """Declared values, undeclared ones from live, so the call resets nothing; never an
    undeclared parameter the portal's release lacks (the gate is for declared ones)."""
    platform = draft.live.portal.platform
    params: dict[str, Value] = {}
    spec = OPERATIONS[operation]
    for name in names:
        value = getattr(want, name)
        if value is None and have is not None:
            lacking = spec.parameter_problem(name, platform)
            value = None if lacking else getattr(have, name)
        if value is not None:
            params[name] = form_value(value)
    return params


def schedule_complete(want: Schedule, now_ms: int) -> bool:
    """A finite schedule whose last trigger has come: the service deleted the job then.

    It fires at startTime and is re-triggered repeatCount times (docs/rules.md §2, §3), so its
    last trigger is at startTime + interval × repeatCount hours. Without a declared
    startTime the trigger times are unknown and the job is never taken as complete.
    """
    if want.startTime is None or want.repeatCount is None or want.repeatCount < 1:
        return False
    interval = want.interval if want.interval is not None else 24
    last_trigger = want.startTime + interval * want.repeatCount * HOUR_MS
    return last_trigger <= now_ms  # deleted at the very moment of the last trigger


def _complete(want: Schedule, have: Schedule | None, now_ms: int) -> bool:
    """Only a missing live job can be complete; a live one is compared as usual."""
    return have is None and schedule_complete(want, now_ms)
