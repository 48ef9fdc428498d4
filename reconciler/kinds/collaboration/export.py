"""Collaboration's part of `orgctl export`: each collaboration as this portal's side may
change it (workspace info on the host; the group link and the job schedule on a guest),
every field this portal's release can write."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reconciler import catalog
from reconciler.export.documents import Document, available, document, iso_utc
from reconciler.kinds.collaboration.plan import SCHEDULE_FIELDS
from reconciler.kinds.collaboration.slots import LIVE, side_of
from reconciler.operations import OperationName
from reconciler.state import Collaboration, GroupLink, LiveState, Schedule, Workspace
from reconciler.versions import Platform


@dataclass(slots=True)
class Collaborations:
    documents: list[Document] = field(default_factory=list)
    workspaces: int = 0
    pending_invitations: int = 0


def collaboration_documents(live: LiveState) -> Collaborations:
    """Each collaboration, with its workspaces as this portal's side may change them:
    workspace info on the host; the group link and the job schedule on a guest."""
    out = Collaborations()
    platform = live.portal.platform
    collaborations = live.get(LIVE)
    for cid in sorted(collaborations):
        collab = collaborations[cid]
        host = side_of(collab, live) == "host"
        spec: dict[str, Any] = {}
        invalid = sorted(i for i, s in collab.invitations.items() if s == "invalidated")
        out.pending_invitations += len(collab.invitations) - len(invalid)
        if host and invalid and available(OperationName.INVALIDATE_INVITATION, platform):
            spec["invalidInvitations"] = invalid
        workspaces = {
            wid: _host_workspace(ws, platform) if host else _guest_workspace(ws, platform)
            for wid, ws in sorted(collab.workspaces.items())
        }
        if workspaces:
            spec["workspaces"] = workspaces
        out.workspaces += len(workspaces)
        out.documents.append(document("Collaboration", _collaboration_metadata(collab), spec))
    return out


def _collaboration_metadata(collab: Collaboration) -> dict[str, Any]:
    return {"name": collab.name or collab.id, "id": collab.id}


def _host_workspace(workspace: Workspace, platform: Platform) -> dict[str, Any]:
    return {
        key: getattr(workspace, key)
        for key, feature in catalog.WORKSPACE_INFO_GATES.items()
        if getattr(workspace, key) is not None
        and available(feature or OperationName.UPDATE_INFO, platform)
    }


def _guest_workspace(workspace: Workspace, platform: Platform) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if workspace.schedule is not None and available(OperationName.UPDATE_SCHEDULE, platform):
        schedule = _schedule(workspace.schedule)
        if schedule:
            out["schedule"] = schedule
    if workspace.groupLink is not None and available(OperationName.UPDATE_GROUP_LINK, platform):
        link = _group_link(workspace.groupLink, platform)
        if link:
            out["groupLink"] = link
    return out


def _schedule(schedule: Schedule) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in SCHEDULE_FIELDS:
        value = getattr(schedule, key)
        if value is not None:
            out[key] = iso_utc(value) if key == "startTime" else value
    return out


def _group_link(link: GroupLink, platform: Platform) -> dict[str, Any]:
    out = {
        key: getattr(link, key)
        for key, feature in catalog.GROUP_LINK_GATES.items()
        if getattr(link, key) is not None
        and available(feature or OperationName.UPDATE_GROUP_LINK, platform)
    }
    if out.get("enableFeatureServiceBidirectionalSync") and not out.get("copyFeatureServiceData"):
        # The manifest rule (docs/rules.md §4.7) refuses this pair; a portal that reports it anyway
        # keeps it unmanaged rather than made invalid.
        del out["enableFeatureServiceBidirectionalSync"]
    return out
