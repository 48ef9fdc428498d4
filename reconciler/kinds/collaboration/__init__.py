"""Collaboration: a collaboration this portal hosts or joined, its workspaces (info, group
links, schedules) and the invitations that must be invalid; `state: absent` deletes it
(host) or leaves it (guest)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from reconciler import address_forms as forms
from reconciler import catalog, state
from reconciler.catalog import Feature
from reconciler.export.documents import Document as Exported
from reconciler.export.summary import counted
from reconciler.kind import (
    Adopt,
    Export,
    ExportInput,
    ExportPart,
    Fill,
    Identities,
    Kind,
    LiveRead,
    Unread,
    Write,
    model_reader,
)
from reconciler.kinds.collaboration.slots import DECLARED, LIVE, NAME, side_of
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, gate, source, text
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.manifest.raw import KeyPath
from reconciler.operations import OPERATIONS, OperationName, ReadName
from reconciler.plan.draft import Draft
from reconciler.state import DesiredState, LiveState
from reconciler.versions import Platform

ADDRESS = forms.COLLABORATION
# The writes a host and a guest of a collaboration make (`orgctl doctor` predicts them).
HOST_WRITES = (
    OperationName.UPDATE_INFO,
    OperationName.INVALIDATE_INVITATION,
    OperationName.DELETE_COLLABORATION,
)
GUEST_WRITES = (
    OperationName.UPDATE_GROUP_LINK,
    OperationName.UPDATE_SCHEDULE,
    OperationName.REMOVE_PARTICIPATION,
)
WORKSPACE = forms.WORKSPACE
INVITATION = forms.INVITATION

if TYPE_CHECKING:
    from reconciler.adopt.addresses import Address
    from reconciler.adopt.files import ManifestFiles


# --- manifest ----------------------------------------------------------------------------------


class CollaborationMetadata(models.DocumentMetadata):
    id: str = Field(min_length=1, description="the collaboration id: its identity")


class ScheduleSpec(models.Strict):
    startTime: models.StartTime | None = None
    interval: int | None = None
    repeatCount: int | None = None


class GroupLinkSpec(models.Strict):
    portalGroupId: str | None = None
    enableRealtimeSync: bool | None = None
    copyFeatureServiceData: bool | None = None
    enableFeatureServiceBidirectionalSync: bool | None = None


class WorkspaceSpec(models.Strict):
    name: str | None = Field(None, max_length=catalog.WORKSPACE_NAME_MAX)
    description: str | None = Field(None, max_length=catalog.WORKSPACE_DESCRIPTION_MAX)
    # The spec states no bound; the service refuses a negative or non-finite size.
    maxItemSizeInMB: float | None = Field(None, ge=0, le=catalog.MAX_SIZE_MB, allow_inf_nan=False)
    maxReplicationPackageSizeInMB: float | None = Field(
        None, ge=0, le=catalog.MAX_SIZE_MB, allow_inf_nan=False
    )
    copyByRefIfCopyFail: bool | None = None
    schedule: ScheduleSpec | None = None
    groupLink: GroupLinkSpec | None = None


class CollaborationSpec(models.Strict):
    state: models.Presence = "present"
    invalidInvitations: models.StringSet = models.empty()
    workspaces: dict[str, WorkspaceSpec] = models.empty(dict)


class Collaboration(models.Document):
    kind: Literal["Collaboration"]
    metadata: CollaborationMetadata
    spec: CollaborationSpec = CollaborationSpec()


_model = model_reader(Collaboration)


def _identities(document: Document) -> Iterator[Identities[Document]]:
    model = _model(document)
    yield Identities.named("collaboration id", document, ("metadata", "id"), model.metadata.id)
    yield Identities.under("workspace id", document, ("spec", "workspaces"), model.spec.workspaces)


# --- rules -------------------------------------------------------------------------------------


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    spec = _model(document).spec
    platform = context.platform
    if spec.state == "absent" and (spec.workspaces or spec.invalidInvitations):
        yield document.problem(
            ("spec", "state"),
            "a collaboration declared absent cannot also declare workspaces or invitations",
        )
    if spec.state == "absent" and platform is not None:
        # Offline the portal's side is unknown: the host deletes, a guest leaves. The
        # planner, which reads the side, checks the one that applies.
        reasons = [
            OPERATIONS[name].problem(platform)
            for name in (OperationName.DELETE_COLLABORATION, OperationName.REMOVE_PARTICIPATION)
        ]
        if all(reasons):
            yield document.problem(("spec", "state"), "; ".join(r for r in reasons if r))
    if spec.invalidInvitations:
        yield from gate(
            document, ("spec", "invalidInvitations"), OperationName.INVALIDATE_INVITATION, platform
        )
    for workspace_id, workspace in spec.workspaces.items():
        yield from _workspace(document, ("spec", "workspaces", workspace_id), workspace, platform)


# What each workspace field needs: its operation, and some a later release as well.
_WORKSPACE_FIELD_GATES: dict[str, OperationName | Feature] = {
    **{
        name: feature or OperationName.UPDATE_INFO
        for name, feature in catalog.WORKSPACE_INFO_GATES.items()
    },
    "schedule": OperationName.UPDATE_SCHEDULE,
    "groupLink": OperationName.UPDATE_GROUP_LINK,
}
# The groupLink's own gate covers the rest of its fields.
_GROUP_LINK_FIELD_GATES: dict[str, Feature] = {
    name: feature for name, feature in catalog.GROUP_LINK_GATES.items() if feature is not None
}


def _workspace(
    document: Document, where: KeyPath, workspace: WorkspaceSpec, platform: Platform | None
) -> Iterator[Problem]:
    for key, feature in _WORKSPACE_FIELD_GATES.items():
        if getattr(workspace, key) is not None:
            yield from gate(document, (*where, key), feature, platform)
    if workspace.name is not None:
        yield from text(document, (*where, "name"), workspace.name)
    if workspace.description is not None:
        yield from text(document, (*where, "description"), workspace.description, True)
    if workspace.name is not None and not workspace.name.strip():
        yield document.problem(
            (*where, "name"),
            f"workspace name must not be blank (1 to {catalog.WORKSPACE_NAME_MAX} characters)",
        )
    if workspace.schedule is not None:
        yield from _schedule(document, (*where, "schedule"), workspace.schedule)
    link = workspace.groupLink
    if link is not None:
        for key, feature in _GROUP_LINK_FIELD_GATES.items():
            if getattr(link, key) is not None:
                yield from gate(document, (*where, "groupLink", key), feature, platform)
        if link.enableFeatureServiceBidirectionalSync and link.copyFeatureServiceData is not True:
            yield document.problem(
                (*where, "groupLink", "enableFeatureServiceBidirectionalSync"),
                "enableFeatureServiceBidirectionalSync: true needs copyFeatureServiceData: true",
            )


def _schedule(document: Document, where: KeyPath, schedule: ScheduleSpec) -> Iterator[Problem]:
    interval_problem = catalog.schedule_problem(schedule.interval, None)
    if interval_problem:
        yield document.problem((*where, "interval"), interval_problem)
    repeat_problem = catalog.schedule_problem(None, schedule.repeatCount)
    if repeat_problem:
        yield document.problem((*where, "repeatCount"), repeat_problem)
    if schedule.startTime is not None and schedule.startTime < 0:
        yield document.problem(
            (*where, "startTime"), f"startTime must not be before 1970, got {schedule.startTime}"
        )
    elif start_problem := catalog.schedule_problem(None, None, schedule.startTime):
        yield document.problem((*where, "startTime"), start_problem)
    finite = schedule.repeatCount is not None and schedule.repeatCount > 0
    if finite and schedule.startTime is None:
        # A finite job counts its triggers from startTime; "now" would restart the count
        # on every apply.
        yield document.problem(
            (*where, "repeatCount"), "a finite repeatCount needs an explicit startTime"
        )


# --- desired state -----------------------------------------------------------------------------


def _desired(desired: DesiredState, document: Document) -> None:
    model = _model(document)
    cid = model.metadata.id
    workspaces = {wid: _desired_workspace(wid, ws) for wid, ws in model.spec.workspaces.items()}
    # metadata.name is only a label: no operation renames a collaboration, so the name is
    # left unmanaged (None) rather than a difference no plan could ever remove.
    desired.get(DECLARED)[cid] = state.Collaboration(
        cid,
        name=None,
        workspaces=workspaces,
        present=model.spec.state == "present",
        invalidInvitations=frozenset(model.spec.invalidInvitations),
    )
    desired.sources[ADDRESS.of(cid)] = source(document)
    for wid in workspaces:
        desired.sources[WORKSPACE.of(cid, wid)] = source(document, "spec", "workspaces", wid)
    for invitation in model.spec.invalidInvitations:
        index = model.spec.invalidInvitations.index(invitation)
        desired.sources[INVITATION.of(cid, invitation)] = source(
            document, "spec", "invalidInvitations", index
        )


def _desired_workspace(wid: str, spec: WorkspaceSpec) -> state.Workspace:
    link, schedule = spec.groupLink, spec.schedule
    return state.Workspace(
        wid,
        name=spec.name,
        description=spec.description,
        maxItemSizeInMB=_number(spec.maxItemSizeInMB),
        maxReplicationPackageSizeInMB=_number(spec.maxReplicationPackageSizeInMB),
        copyByRefIfCopyFail=spec.copyByRefIfCopyFail,
        groupLink=(
            state.GroupLink(
                link.portalGroupId,
                link.enableRealtimeSync,
                link.copyFeatureServiceData,
                link.enableFeatureServiceBidirectionalSync,
            )
            if link
            else None
        ),
        schedule=(
            state.Schedule(schedule.startTime, schedule.interval, schedule.repeatCount)
            if schedule
            else None
        ),
    )


def _number(value: float | None) -> int | float | None:
    # A whole number stays an integer, as the service reports it.
    return int(value) if value is not None and value.is_integer() else value


# --- live, export ------------------------------------------------------------------------------


def _live(live: LiveState) -> Iterator[tuple[str, Any]]:
    for cid, collab in live.get(LIVE).items():
        yield ADDRESS.of(cid), (collab.name, collab.hostPortalId)
        for wid, workspace in collab.workspaces.items():
            yield WORKSPACE.of(cid, wid), workspace
        for iid, status in collab.invitations.items():
            yield INVITATION.of(cid, iid), status


def _export(given: ExportInput) -> ExportPart[Exported]:
    from reconciler.kinds.collaboration.export import collaboration_documents  # when run

    found = collaboration_documents(given.live)
    phrase = counted(len(found.documents), "collaboration")
    if found.documents:
        phrase += f" ({counted(found.workspaces, 'workspace')})"
    notes = []
    if found.pending_invitations:
        notes.append(
            f"{found.pending_invitations} invitation(s) that are still valid, left out: a"
            " manifest can only require an invitation to be invalid"
        )
    return ExportPart(found.documents, notes, phrase)


# What the service answers for a workspace field it leaves out (docs/rules.md §2).
DEFAULTS = {
    "enableFeatureServiceBidirectionalSync": False,
    "interval": catalog.SCHEDULE_DEFAULT_INTERVAL_HOURS,
    "repeatCount": catalog.SCHEDULE_REPEAT_FOREVER,
}


def _depending(desired: DesiredState, part: str) -> list[str]:
    return [ADDRESS.of(cid) for cid in sorted(desired.get(DECLARED).keys())]


def _forget(live: LiveState, parts: Mapping[str, str]) -> LiveState:
    return live.with_slot(LIVE, {})


async def _read(source: LiveRead) -> Fill:
    # Loaded when a portal is read: validate loads the kind, not its read's asyncio.
    from reconciler.kinds.collaboration.live import read

    return await read(source)


def _plan(draft: Draft) -> None:
    # Loaded when it runs: validate loads every kind, not its planning, export or
    # adoption (import budget).
    from reconciler.kinds.collaboration.plan import plan_collaborations

    plan_collaborations(draft)


def _adopt(files: ManifestFiles, live: LiveState, address: Address) -> str:
    from reconciler.kinds.collaboration.adopt import adopt_collaboration  # as in `_plan`

    return adopt_collaboration(files, live, address)


def _writes(desired: DesiredState, live: LiveState) -> Iterator[Write]:
    """A declared collaboration's writes on this portal's side of it, the host's or a
    guest's (one the portal does not have, the plan reports itself)."""
    for cid in sorted(desired.get(DECLARED).keys()):
        known = live.get(LIVE).get(cid)
        if known is None:
            continue
        side = side_of(known, live)
        for op in HOST_WRITES if side == "host" else GUEST_WRITES:
            yield Write(op, ADDRESS.of(cid), {"collaborationId": cid}, side)


KIND = Kind(
    name=NAME,
    model=Collaboration,
    singleton=False,
    addresses=(ADDRESS, WORKSPACE, INVITATION),
    set_fields=(("spec", "invalidInvitations"),),
    identities=_identities,
    rules=_rules,
    desired=_desired,
    read=_read,
    people=False,
    live=_live,
    defaults=DEFAULTS,
    unread=Unread(ADDRESS.every(), ReadName.COLLABORATIONS, _depending, _forget),
    grants=None,
    prepare=None,
    plan=_plan,
    plan_last=None,
    annotate=None,
    writes=_writes,
    privileges=None,
    export=Export("collaborations.yaml", _export),
    adopt=Adopt(_adopt),
    unadoptable={"Invitation": "adopt Collaboration/<id> to write its invalidInvitations"},
)
