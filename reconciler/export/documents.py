"""Live records → manifest documents (README: manifest reference), as plain ordered mappings.

Only what the manifest format can express, and only what this portal's platform and side
of each collaboration may change: a field the validator or the planner would refuse is
never written, so `orgctl plan` on the result is empty. Maps keyed by identity are sorted
by that identity and privileges are sorted; the fields of one record keep the order of
README: manifest reference, so the same live state always gives the same documents.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from reconciler import catalog
from reconciler.catalog import Feature
from reconciler.manifest.models import API_VERSION
from reconciler.operations import OperationName, availability_problem
from reconciler.state import (
    Auth,
    Collaboration,
    GroupLink,
    LiveState,
    Schedule,
    Workspace,
)
from reconciler.versions import Platform

Document = dict[str, Any]

SCHEDULE_FIELDS = ("startTime", "interval", "repeatCount")


def document(kind: str, metadata: dict[str, Any], spec: dict[str, Any]) -> Document:
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


def iso_utc(epoch_ms: int) -> str:
    """`2026-01-01T00:00:00Z`; milliseconds appear only when there are some."""
    moment = datetime.fromtimestamp(epoch_ms / 1000, UTC)
    if epoch_ms % 1000:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{epoch_ms % 1000:03d}Z"
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _available(needs: OperationName | Feature, platform: Platform) -> bool:
    return availability_problem(needs, platform) is None


# --- Portal ----------------------------------------------------------------------------------


def portal_document(
    live: LiveState,
    *,
    name: str,
    url: str,
    admin_url: str | None,
    auth: Auth,
    extra_privileges: Iterable[str] = (),
) -> Document:
    platform = live.portal.platform
    spec: dict[str, Any] = {"url": url}
    if admin_url:
        spec["adminUrl"] = admin_url
    spec["deployment"] = str(platform.deployment)
    spec["version"] = str(platform.release)
    spec["auth"] = {
        key: getattr(auth, key)
        for key in ("tokenEnv", "usernameEnv", "passwordEnv")
        if getattr(auth, key)
    }
    extra = sorted(set(extra_privileges))
    if extra:
        spec["extraPrivileges"] = extra
    return document("Portal", {"name": name}, spec)


# --- Roles -----------------------------------------------------------------------------------


def unknown_privileges(live: LiveState) -> list[str]:
    """Privileges that exported roles hold but the catalog does not allow on this platform
    (such as the self-hosted notebook web-tools privilege, whose id the spec does not
    show): the portal has them, so they go into `extraPrivileges`."""
    platform = live.portal.platform
    held = {p for role in live.roles.values() if role.editable for p in role.privileges or ()}
    return sorted(p for p in held if catalog.privilege_problem(p, platform) is not None)


# --- Collaborations --------------------------------------------------------------------------


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
    for cid in sorted(live.collaborations):
        collab = live.collaborations[cid]
        host = collab.hostPortalId == live.portal.id
        spec: dict[str, Any] = {}
        invalid = sorted(i for i, s in collab.invitations.items() if s == "invalidated")
        out.pending_invitations += len(collab.invitations) - len(invalid)
        if host and invalid and _available(OperationName.INVALIDATE_INVITATION, platform):
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
        and _available(feature or OperationName.UPDATE_INFO, platform)
    }


def _guest_workspace(workspace: Workspace, platform: Platform) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if workspace.schedule is not None and _available(OperationName.UPDATE_SCHEDULE, platform):
        schedule = _schedule(workspace.schedule)
        if schedule:
            out["schedule"] = schedule
    if workspace.groupLink is not None and _available(OperationName.UPDATE_GROUP_LINK, platform):
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
        and _available(feature or OperationName.UPDATE_GROUP_LINK, platform)
    }
    if out.get("enableFeatureServiceBidirectionalSync") and not out.get("copyFeatureServiceData"):
        # The manifest rule (docs/rules.md §4.7) refuses this pair; a portal that reports it anyway
        # keeps it unmanaged rather than made invalid.
        del out["enableFeatureServiceBidirectionalSync"]
    return out
