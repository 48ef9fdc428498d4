"""Collaboration's live side: the converters of the portal's answers into the state's
records, and the read of the collaborations, their workspaces, the guests' schedules and
the host's invitations, in the reader's one round of requests.

Only what the manifests need is read: the workspaces of declared collaborations, the
schedules a workspace manages, the invitations a host invalidates (all of them for an
export). A refused listing (403) leaves the collaborations unread, as `Collaboration/*`;
a value orgctl cannot read leaves that resource unreadable; the rest is read and planned.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from reconciler.address_forms import COLLABORATION, INVITATION, WORKSPACE
from reconciler.kind import Fill, LiveRead
from reconciler.kinds.collaboration.slots import DECLARED, LIVE
from reconciler.live.concurrency import first_failure, gather
from reconciler.live.errors import NotFoundError
from reconciler.live.records import Json, entry_id, field_value, json_object, path_id
from reconciler.operations import ReadName
from reconciler.state import Collaboration, DesiredState, GroupLink, LiveState, Schedule, Workspace
from reconciler.values import boolean, epoch_ms, integer, number

# --- converters ----------------------------------------------------------------------------


def collaboration(raw: Json) -> Collaboration:
    host = raw.get("collaborationHostPortalId")
    return Collaboration(
        id=path_id(raw, "id", "a collaboration"),
        name=raw.get("name"),
        hostPortalId=str(host) if host is not None else None,
    )


def workspace(
    raw: Json, portal_id: str, schedule: Schedule | None, collaboration_id: str
) -> Workspace:
    workspace_id = path_id(raw, "id", f"a workspace of Collaboration/{collaboration_id}")
    where = WORKSPACE.of(collaboration_id, workspace_id)
    config = json_object(raw.get("config"))
    # Older releases answer the settings at the top level rather than under `config`.
    settings = {**raw, **config}
    return Workspace(
        id=workspace_id,
        name=raw.get("name"),
        description=raw.get("description"),
        maxItemSizeInMB=field_value(settings, "maxItemSizeInMB", number, where),
        maxReplicationPackageSizeInMB=field_value(
            settings, "maxReplicationPackageSizeInMB", number, where
        ),
        copyByRefIfCopyFail=field_value(settings, "copyByRefIfCopyFail", boolean, where),
        groupLink=group_link(raw, portal_id),
        schedule=schedule,
    )


def group_link(raw: Json, portal_id: str) -> GroupLink | None:
    """THIS portal's link: the `participantGroupLinks` entry carrying its id."""
    for link in raw.get("participantGroupLinks") or ():
        if isinstance(link, dict) and str(link.get("portalId")) == portal_id:
            config = json_object(link.get("config"))
            where = f"the group link of workspace {raw.get('id')}"
            bidirectional = field_value(
                config, "enableFeatureServiceBidirectionalSync", boolean, where
            )
            return GroupLink(
                portalGroupId=link.get("portalGroupId"),
                enableRealtimeSync=field_value(config, "enableRealtimeSync", boolean, where),
                copyFeatureServiceData=field_value(
                    config, "copyFeatureServiceData", boolean, where
                ),
                # docs/rules.md §4.7: false unless set
                enableFeatureServiceBidirectionalSync=bool(bidirectional),
            )
    return None


def schedule(raw: Json, workspace: str) -> Schedule:
    """The job schedule of `workspace` (its address); a bad value names schedule.<field>."""
    fields = ("startTime", epoch_ms), ("interval", integer), ("repeatCount", integer)
    values = {
        name: field_value(raw, name, convert, workspace, "schedule.") for name, convert in fields
    }
    times = field_value(raw, "timesTriggered", integer, workspace, "schedule.")
    return Schedule(**values, timesTriggered=times)


# --- the read ------------------------------------------------------------------------------


@dataclass(slots=True)
class Wanted:
    """The optional reads the manifests ask for (all of them for an export)."""

    everything: bool = False
    collaborations: set[str] = field(default_factory=set)
    schedules: set[tuple[str, str]] = field(default_factory=set)  # (collaboration, workspace)
    invitations: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, desired: DesiredState | None, everything: bool) -> Wanted:
        wanted = cls(everything=everything)
        for cid, collab in (desired.get(DECLARED) if desired else {}).items():
            wanted.collaborations.add(cid)
            if collab.invalidInvitations:
                wanted.invitations.add(cid)
            wanted.schedules |= {(cid, w) for w, ws in collab.workspaces.items() if ws.schedule}
        return wanted


async def read(source: LiveRead) -> Fill:
    """The collaborations, or none when the signed-in member may not read them."""
    reading = _Reading(source, Wanted.of(source.desired, source.everything))
    found = await source.permitted(COLLABORATION.every(), reading.all_collaborations(), {})

    def fill(live: LiveState) -> None:
        live.put(LIVE, found)

    return fill


@dataclass(frozen=True, slots=True)
class _Reading:
    source: LiveRead
    wanted: Wanted

    async def all_collaborations(self) -> dict[str, Collaboration]:
        raw = await self.source.pages(ReadName.COLLABORATIONS)
        listed = self.source.distinct(
            self.source.kept(raw, collaboration), "id", _id, lambda c: COLLABORATION.of(c.id)
        )
        wanted = [c for c in listed if self.wanted.everything or c.id in self.wanted.collaborations]
        filled = await gather(*(self.collaboration(c) for c in wanted))
        by_id = {c.id: c for c in listed}
        by_id.update({c.id: c for c in filled})
        return by_id

    async def collaboration(self, collab: Collaboration) -> Collaboration:
        host = collab.hostPortalId == await self.source.portal_id()
        try:
            async with asyncio.TaskGroup() as group:
                workspaces = group.create_task(self.workspaces(collab))
                invitations = group.create_task(self.invitations(collab.id, host))
        except BaseExceptionGroup as failed:
            raise first_failure(failed) from None
        return replace(collab, workspaces=workspaces.result(), invitations=invitations.result())

    async def workspaces(self, collab: Collaboration) -> dict[str, Workspace]:
        raw = await self.source.pages(ReadName.WORKSPACES, collaborationId=collab.id)
        where = f"a workspace of Collaboration/{collab.id}"
        identified = [
            (wid, w) for w in raw if (wid := self.source.readable(partial(entry_id, w, where)))
        ]
        listed = self.source.distinct(
            identified, "id", _first, lambda pair: WORKSPACE.of(collab.id, pair[0])
        )
        portal_id = await self.source.portal_id()
        guest = collab.hostPortalId != portal_id
        schedules = await gather(*(self.schedule(collab.id, wid, guest) for wid, _ in listed))
        built = (
            self.source.readable(partial(workspace, w, portal_id, s, collab.id))
            for (_, w), s in zip(listed, schedules, strict=True)
        )
        return {w.id: w for w in built if w is not None}

    async def schedule(self, cid: str, wid: str, guest: bool) -> Schedule | None:
        wanted = (cid, wid) in self.wanted.schedules or (self.wanted.everything and guest)
        if not wanted:
            return None
        try:
            raw = await self.source.one(ReadName.SCHEDULE, collaborationId=cid, workspaceId=wid)
        except NotFoundError:
            return None  # no job scheduled
        return self.source.readable(partial(schedule, raw, WORKSPACE.of(cid, wid)))

    async def invitations(self, cid: str, host: bool) -> dict[str, str]:
        # Only the host invalidates invitations, so only the host's export needs them.
        wanted = cid in self.wanted.invitations or (self.wanted.everything and host)
        if not wanted:
            return {}
        raw = await self.source.pages(ReadName.INVITATIONS, collaborationId=cid)
        where = f"an invitation of Collaboration/{cid}"
        identified = self.source.kept(raw, lambda i: (entry_id(i, where), i))
        listed = self.source.distinct(
            identified, "id", _first, lambda pair: INVITATION.of(cid, pair[0])
        )
        return {iid: str(i.get("status") or "") for iid, i in listed}


def _id(record: Collaboration) -> str:
    return record.id


def _first(pair: tuple[str, Any]) -> str:
    return pair[0]
