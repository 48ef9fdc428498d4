"""Read a live portal into a `LiveState` (design §6) with as few round trips as possible.

Only what the manifests need is read: workspaces of declared collaborations, schedules of
workspaces whose schedule is managed, per-member details only for members whose level
changes. Independent reads are gathered; the client's semaphore bounds them.
`Scope.EVERYTHING` reads the whole portal, for `export`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeVar
from urllib.parse import quote

from reconciler.errors import UserError
from reconciler.live import records
from reconciler.live.client import PortalClient
from reconciler.live.errors import NotFoundError, ServiceError
from reconciler.state import (
    Collaboration,
    DesiredState,
    LiveState,
    Member,
    MemberDetail,
    Role,
    Schedule,
    Task,
    Webhook,
    Workspace,
)

T = TypeVar("T")


class Scope(StrEnum):
    DESIRED = "desired"  # what the manifests manage
    EVERYTHING = "everything"  # the whole portal (export)


@dataclass(slots=True)
class Needs:
    """Which optional reads a plan needs."""

    everything: bool = False
    collaborations: set[str] = field(default_factory=set)
    schedules: set[tuple[str, str]] = field(default_factory=set)  # (collaboration, workspace)
    invitations: set[str] = field(default_factory=set)
    webhooks: bool = False
    settings: bool = False
    task_owners: dict[str, set[str]] = field(default_factory=dict)  # user -> task ids or "*"
    levels: dict[str, int] = field(default_factory=dict)  # username -> desired level

    @classmethod
    def of(cls, desired: DesiredState | None, scope: Scope) -> Needs:
        needs = cls(everything=scope is Scope.EVERYTHING, webhooks=scope is Scope.EVERYTHING)
        needs.settings = needs.everything
        if desired is None:
            return needs
        for cid, collab in desired.collaborations.items():
            needs.collaborations.add(cid)
            if collab.invalidInvitations:
                needs.invitations.add(cid)
            needs.schedules |= {(cid, w) for w, ws in collab.workspaces.items() if ws.schedule}
        needs.webhooks |= desired.webhookRemoval is not None
        needs.settings |= desired.webhookSettings is not None
        for policy in desired.retention:
            needs.task_owners.setdefault(policy.user, set()).update(policy.tasks)
        needs.levels = {u: m.level for u, m in desired.members.items() if m.level is not None}
        return needs


async def read_live(
    client: PortalClient, desired: DesiredState | None, scope: Scope = Scope.DESIRED
) -> LiveState:
    """The live state the planner diffs `desired` against (or the whole portal)."""
    try:
        return await _read(client, Needs.of(desired, scope))
    except (KeyError, ValueError, TypeError) as exc:
        # a record without its identity or with a value of the wrong kind
        raise UserError(
            f"portal at {client.root} answered a record orgctl cannot read "
            f"({type(exc).__name__}: {exc}): is the URL the sharing REST root?"
        ) from None


async def _read(client: PortalClient, needs: Needs) -> LiveState:
    portal = records.portal_info(await client.get_json("portals/self"), client.root)
    if not portal.id:
        raise UserError(f"portal at {client.root} answered portals/self without an id")
    reader = _Reader(client, portal.id, needs)
    (
        roles,
        (members, details),
        collaborations,
        webhooks,
        (settings, unread),
        tasks,
    ) = await asyncio.gather(
        reader.roles(),
        reader.members(),
        reader.collaborations(),
        reader.webhooks(),
        reader.settings(),
        reader.tasks(),
    )
    return LiveState(
        portal=portal,
        roles={r.name: r for r in roles},
        members=_with_role_names(members, roles),
        memberDetails=details,
        collaborations=collaborations,
        webhookSettings=settings,
        webhookSettingsUnread=unread,
        webhooks=webhooks,
        tasks=tasks,
    )


def _with_role_names(raw_members: list[dict[str, Any]], roles: list[Role]) -> dict[str, Member]:
    names = {r.id: r.name for r in roles if r.id}
    members: dict[str, Member] = {}
    for raw in raw_members:
        level = raw.get("level")
        members[str(raw["username"])] = Member(
            username=str(raw["username"]),
            role=records.member_role(raw, names),
            level=int(level) if level not in (None, "") else None,
        )
    return members


def _segment(value: str) -> str:
    return quote(value, safe="")


class _Reader:
    def __init__(self, client: PortalClient, portal_id: str, needs: Needs) -> None:
        self.client = client
        self.portal_id = portal_id
        self.needs = needs
        self.base = f"portals/{_segment(portal_id)}"

    async def roles(self) -> list[Role]:
        raw = await self.client.get_pages(
            f"{self.base}/roles", "roles", {"returnPrivileges": "true"}
        )
        return [records.role(r) for r in raw]

    async def members(self) -> tuple[list[dict[str, Any]], dict[str, MemberDetail]]:
        raw = await self.client.get_pages(f"{self.base}/users", "users")
        changing = [
            str(m["username"])
            for m in raw
            if m.get("username") in self.needs.levels
            and _level(m) != self.needs.levels[str(m["username"])]
        ]
        details = await asyncio.gather(*(self.member_detail(u) for u in changing))
        return raw, {d.username: d for d in details}

    async def member_detail(self, username: str) -> MemberDetail:
        user, items = await asyncio.gather(
            self.client.get_json(f"community/users/{_segment(username)}"),
            self.client.get_json(f"content/users/{_segment(username)}", {"num": 1}),
        )
        return records.member_detail(username, user, items)

    async def collaborations(self) -> dict[str, Collaboration]:
        raw = await self.client.get_pages(f"{self.base}/collaborations", "collaborations")
        listed = [records.collaboration(c) for c in raw]
        wanted = [c for c in listed if self.needs.everything or c.id in self.needs.collaborations]
        filled = await asyncio.gather(*(self.collaboration(c) for c in wanted))
        by_id = {c.id: c for c in listed}
        by_id.update({c.id: c for c in filled})
        return by_id

    async def collaboration(self, collab: Collaboration) -> Collaboration:
        path = f"{self.base}/collaborations/{_segment(collab.id)}"
        host = collab.hostPortalId == self.portal_id
        workspaces, invitations = await asyncio.gather(
            self.workspaces(path, collab), self.invitations(path, collab.id, host)
        )
        return replace(collab, workspaces=workspaces, invitations=invitations)

    async def workspaces(self, path: str, collab: Collaboration) -> dict[str, Workspace]:
        raw = await self.client.get_pages(f"{path}/workspaces", "workspaces")
        guest = collab.hostPortalId != self.portal_id
        schedules = await asyncio.gather(
            *(self.schedule(path, collab.id, str(w["id"]), guest) for w in raw)
        )
        return {
            str(w["id"]): records.workspace(w, self.portal_id, s)
            for w, s in zip(raw, schedules, strict=True)
        }

    async def schedule(self, path: str, cid: str, wid: str, guest: bool) -> Schedule | None:
        wanted = (cid, wid) in self.needs.schedules or (self.needs.everything and guest)
        if not wanted:
            return None
        try:
            raw = await self.client.get_json(f"{path}/workspaces/{_segment(wid)}/schedule")
        except NotFoundError:
            return None  # no job scheduled
        return records.schedule(raw)

    async def invitations(self, path: str, cid: str, host: bool) -> dict[str, str]:
        # Only the host invalidates invitations, so only the host's export needs them.
        wanted = cid in self.needs.invitations or (self.needs.everything and host)
        if not wanted:
            return {}
        raw = await self.client.get_pages(f"{path}/invitations", "collaborationInvitations")
        return {str(i["id"]): str(i.get("status") or "") for i in raw}

    async def webhooks(self) -> dict[str, Webhook]:
        if not self.needs.webhooks:
            return {}
        read = self.client.get_pages(f"{self.base}/webhooks", "webhooks")
        raw = await (_tolerant(read, []) if self.needs.everything else read)
        return {w.id: w for w in (records.webhook(r) for r in raw)}

    async def settings(self) -> tuple[dict[str, int] | None, str | None]:
        """(settings, None), or (None, why) when unknown: the read is undocumented, so any
        refusal is not fatal, but the reason is kept for the plan to show."""
        if not self.needs.settings or self.client.admin_root is None:
            return None, None
        url = self.client.admin_url("services/webhooks/settings")
        try:
            raw = await self.client.get_json(url)
        except (ServiceError, UserError) as error:
            return None, str(error)
        return records.webhook_settings(raw), None

    async def tasks(self) -> dict[str, list[Task]]:
        """Tasks by owner; an owner the portal does not know is left out."""
        owners = sorted(self.needs.task_owners)
        found = await asyncio.gather(*(self.user_tasks(u) for u in owners))
        return {user: tasks for user, tasks in zip(owners, found, strict=True) if tasks is not None}

    async def user_tasks(self, user: str) -> list[Task] | None:
        path = f"community/users/{_segment(user)}/tasks"
        try:
            raw = await self.client.get_pages(path, "tasks")
        except NotFoundError:
            return None  # no such user
        wanted = self.needs.task_owners[user]
        covered = [t for t in raw if "*" in wanted or str(t["id"]) in wanted]
        runs = await asyncio.gather(
            *(
                self.client.get_pages(f"{path}/{_segment(str(t['id']))}/runs", "runs")
                for t in covered
            )
        )
        tasks = [records.task(t, user, r) for t, r in zip(covered, runs, strict=True)]
        return sorted(tasks, key=lambda t: t.id)


def _level(raw: dict[str, Any]) -> int | None:
    level = raw.get("level")
    return int(level) if level not in (None, "") else None


async def _tolerant(read: Awaitable[T], fallback: T) -> T:
    """The read's answer, or `fallback` when the portal refuses or fails it."""
    try:
        return await read
    except (ServiceError, UserError):
        return fallback
