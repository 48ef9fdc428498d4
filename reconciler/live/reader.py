"""Read a live portal into a `LiveState` (docs/rules.md §A) with as few round trips as possible.

Only what the manifests need is read: per-member details only for members whose level
changes, the tasks whose runs a retention policy keeps. Independent reads are gathered,
every kind's own `read` (a collaboration's workspaces, for one) in the same round; the
client's semaphore bounds them. `Scope.EVERYTHING` reads the whole portal, for `export`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import partial
from typing import Any, TypeVar

from reconciler.address_forms import (
    MEMBER,
    ORGANIZATION_WEBHOOK,
    ROLE,
    TASK,
    TASK_RUN,
)
from reconciler.errors import LiveRecordError, UserError
from reconciler.kind import registered
from reconciler.live import records
from reconciler.live.client import PortalClient
from reconciler.live.concurrency import first_failure, gather
from reconciler.live.errors import ForbiddenError, NotFoundError, ServiceError
from reconciler.live.paging import Convert, as_is
from reconciler.live.repeats import without_repeats
from reconciler.live.urls import portal_admin_url
from reconciler.operations import OPERATIONS, READS, OperationName, ReadName
from reconciler.state import (
    Caller,
    DesiredState,
    LiveState,
    Member,
    MemberDetail,
    PortalInfo,
    Role,
    Task,
    Webhook,
)

T = TypeVar("T")
X = TypeVar("X")
Json = dict[str, Any]


class Scope(StrEnum):
    DESIRED = "desired"  # what the manifests manage
    EVERYTHING = "everything"  # the whole portal (export)


@dataclass(slots=True)
class Needs:
    """Which optional reads a plan needs."""

    everything: bool = False
    webhooks: bool = False
    task_owners: dict[str, set[str]] = field(default_factory=dict)  # user -> task ids or "*"
    levels: dict[str, int] = field(default_factory=dict)  # username -> desired level
    # Entries the manifests suggest the listings hold, to ask their first pages at once.
    expected_members: int = 0
    expected_roles: int = 0
    applier: str | None = None  # the member whose capabilities the plan predicts

    @classmethod
    def of(cls, desired: DesiredState | None, scope: Scope) -> Needs:
        needs = cls(everything=scope is Scope.EVERYTHING, webhooks=scope is Scope.EVERYTHING)
        if desired is None:
            return needs
        needs.webhooks |= desired.webhookRemoval is not None
        for policy in desired.retention:
            needs.task_owners.setdefault(policy.user, set()).update(policy.tasks)
        needs.levels = {u: m.level for u, m in desired.members.items() if m.level is not None}
        needs.expected_members, needs.expected_roles = len(desired.members), len(desired.roles)
        needs.applier = desired.portal.applier
        return needs


async def read_live(
    client: PortalClient, desired: DesiredState | None, scope: Scope = Scope.DESIRED
) -> LiveState:
    """The live state the planner diffs `desired` against (or the whole portal)."""
    return await _read(_Reader(client, Needs.of(desired, scope), desired))


async def _read(reader: _Reader) -> LiveState:
    # portals/self and the listings addressed by `self` go out together; the first
    # failure cancels the other reads and is reported alone.
    try:
        async with asyncio.TaskGroup() as group:
            reader.portal = group.create_task(reader.portal_info())
            reader.listed_roles = group.create_task(reader.roles())
            reading_members = group.create_task(reader.members())
            reading_webhooks = group.create_task(reader.webhooks())
            reading_tasks = group.create_task(reader.tasks())
            reading_quotas = group.create_task(reader.level_quotas())
            # Kinds that read their own resources, in the same round of requests.
            reading_kinds = [
                group.create_task(kind.read(reader)) for kind in registered() if kind.read
            ]
    except BaseExceptionGroup as failed:
        raise first_failure(failed) from None
    roles, members = reader.listed_roles.result(), reading_members.result()
    webhooks = reading_webhooks.result()
    quotas, unread_quotas = reading_quotas.result()
    portal = replace(reader.portal.result(), levelQuotas=quotas, levelQuotasUnread=unread_quotas)
    live = LiveState(
        portal=portal,
        roles={r.name: r for r in roles},
        members=members.named,
        memberDetails=members.details,
        webhooks=webhooks,
        tasks=reading_tasks.result(),
        unreadable=reader.unreadable,
        unread=reader.unread,
        applier=members.applier,
    )
    for reading in reading_kinds:
        reading.result()(live)
    return live


async def read_people(client: PortalClient) -> LiveState:
    """Only `portals/self`, the roles and the members: what an access review needs, with
    none of the other reads a plan makes. A refused listing fails as a plan's does,
    saying who may read it (the reads table's access)."""
    reader = _Reader(client, Needs(), None)
    try:
        async with asyncio.TaskGroup() as group:
            reader.portal = group.create_task(reader.portal_info())
            reader.listed_roles = group.create_task(reader.roles())
            reading_members = group.create_task(reader.members())
    except BaseExceptionGroup as failed:
        raise first_failure(failed) from None
    members = reading_members.result()
    return LiveState(
        portal=reader.portal.result(),
        roles={r.name: r for r in reader.listed_roles.result()},
        members=members.named,
        unreadable=reader.unreadable,
    )


@dataclass(frozen=True, slots=True)
class _Members:
    named: dict[str, Member]
    details: dict[str, MemberDetail]  # of the members whose level changes
    applier: Caller | None  # the member spec.applier names, None if none is


class _Reader:
    """Reads the built-in kinds' resources, and is the `LiveRead` a kind's own read gets."""

    def __init__(self, client: PortalClient, needs: Needs, desired: DesiredState | None) -> None:
        self.client = client
        self.needs = needs
        self.desired = desired
        self.everything = needs.everything
        self.unreadable: dict[str, str] = {}  # resource -> what the portal answered wrong
        self.unread: dict[str, str] = {}  # part -> why the signed-in member may not read it
        self.portal: asyncio.Task[PortalInfo]  # set by `_read` as the first read
        self.listed_roles: asyncio.Task[list[Role]]  # set by `_read`

    async def portal_info(self) -> PortalInfo:
        raw = await self.client.get_json(READS[ReadName.PORTAL].build(portalId="self"))
        portal = records.portal_info(raw, self.client.root)
        if not portal.id:
            raise UserError(f"portal at {self.client.root} answered portals/self without an id")
        return portal

    async def portal_id(self) -> str:
        return (await self.portal).id

    async def path(self, read: ReadName, arguments: dict[str, str]) -> str:
        """The read's path; the portal's id is waited for only when the path needs it."""
        listing = READS[read]
        portal_id = await self.portal_id() if listing.needs_portal_id else "self"
        return listing.build(**{"portalId": portal_id, **arguments})

    async def pages(
        self, read: ReadName, params: dict[str, str] | None = None, **arguments: str
    ) -> list[dict[str, Any]]:
        """Every entry of a paged listing of the reads table."""
        return await self.converted_pages(read, as_is, params, arguments=arguments)

    async def converted_pages(
        self,
        read: ReadName,
        convert: Convert[T],
        params: dict[str, str] | None = None,
        *,
        expected: int = 0,
        arguments: dict[str, str] | None = None,
    ) -> list[T]:
        """What `convert` makes of each page of a listing of the reads table, page by page
        as they come (`expected`: how many entries the manifests suggest, so that the
        first pages go out at once; `arguments`: the path's)."""
        path = await self.path(read, arguments or {})
        entries = READS[read].entries or ""
        with _who_may(read):
            return await self.client.get_pages(
                path, entries, params, convert=convert, expected=expected
            )

    async def one(
        self, read: ReadName, params: dict[str, Any] | None = None, **arguments: str
    ) -> dict[str, Any]:
        path = await self.path(read, arguments)
        with _who_may(read):
            return await self.client.get_json(path, params)

    def readable(self, convert: Callable[[], T]) -> T | None:
        """The record `convert` makes, or None when the portal answered a value orgctl
        cannot read: then the resource is kept in `unreadable`, for the plan to show as
        an error of that resource while the rest is read and planned."""
        try:
            return convert()
        except LiveRecordError as error:
            self.unreadable[error.resource] = str(error)
            return None

    async def permitted(self, part: str, read: Awaitable[T], fallback: T) -> T:
        """The read's answer, or `fallback` when the signed-in member may not make it
        (403): then `part` is kept in `unread` with the portal's reason, and the plan says
        what it could not compare instead of failing as a whole."""
        try:
            return await read
        except ForbiddenError as refused:
            self.unread[part] = refused.message
            return fallback

    def kept(self, entries: Iterable[X], convert: Callable[[X], T]) -> list[T]:
        """`readable` over a listing; a loop, as a listing may hold 100,000 entries."""
        found = []
        for entry in entries:
            try:
                found.append(convert(entry))
            except LiveRecordError as error:
                self.unreadable[error.resource] = str(error)
        return found

    def distinct(
        self, found: list[T], field: str, key: Callable[[T], str], address: Callable[[T], str]
    ) -> list[T]:
        """`found` less the entries whose `field` another entry of the listing repeats
        (`repeats.without_repeats`): those are unreadable, each naming the others."""
        return without_repeats(found, field, key, address, self.unreadable)

    async def roles(self) -> list[Role]:
        async def convert(page: list[dict[str, Any]]) -> list[Role]:
            return self.kept(page, records.role)

        params = {"returnPrivileges": "true"}
        expected = self.needs.expected_roles
        found = await self.converted_pages(ReadName.ROLES, convert, params, expected=expected)
        # Writes go to a role's id; the manifests and member assignments name it by name.
        found = self.distinct(found, "id", lambda r: str(r.id), _role_address)
        return self.distinct(found, "name", lambda r: r.name, _role_address)

    async def members(self) -> _Members:
        """Members made into records page by page as they come, each once: a member's
        custom role is named by the roles listing, which is shorter and read alongside."""
        named_by_id: dict[str, str] | None = None
        applier: list[dict[str, Any]] = []

        async def convert(page: list[dict[str, Any]]) -> list[Member]:
            nonlocal named_by_id
            if named_by_id is None:
                named_by_id = {r.id: r.name for r in await self.listed_roles if r.id}
            applier.extend(records.entries_of(page, self.needs.applier))
            return self.kept(page, partial(records.member, custom_names=named_by_id))

        expected = self.needs.expected_members
        listed = await self.converted_pages(ReadName.MEMBERS, convert, expected=expected)
        found = self.distinct(listed, "username", _username, _member_address)
        levels = self.needs.levels
        changing = [
            m.username for m in found if m.username in levels and m.level != levels[m.username]
        ]
        details = await gather(*(self.member_detail(u) for u in changing))
        roles = await self.listed_roles
        return _Members(
            named={member.username: member for member in found},
            details={d.username: d for d in details if d is not None},
            applier=records.applier(applier[0], roles) if applier else None,
        )

    async def member_detail(self, username: str) -> MemberDetail | None:
        """What decides whether a level change is refused; None when the signed-in member
        may not read it (the portal checks the change when it is sent)."""
        reads = gather(
            self.one(ReadName.MEMBER, username=username),
            self.one(ReadName.MEMBER_ITEMS, {"num": 1}, username=username),
        )
        found = await self.permitted(MEMBER.of(username), reads, None)
        if found is not None and "privileges" not in found[0]:
            # A colleague's public profile: the portal shows the account (privileges,
            # groups, licenses) only to the member, administrators and viewUsers holders.
            self.unread[MEMBER.of(username)] = "the portal showed only the member's profile"
            return None
        return records.member_detail(username, *found) if found is not None else None

    async def level_quotas(self) -> tuple[dict[int, int], str | None]:
        """How many members each level may hold, where the vendor publishes it (the Portal
        Administrator API's licenses resource, beside the sharing root), when the
        manifests declare levels on a release that has them: (quotas, why they could not
        be read). An account that may not read it plans on; the plan says the quotas
        were not checked, and assumes none."""
        if not self.needs.levels:
            return {}, None
        portal = await self.portal
        if OPERATIONS[OperationName.UPDATE_USER_LEVEL].problem(portal.platform) is not None:
            return {}, None
        where = records.LICENSES
        url = portal_admin_url(self.client.root, READS[ReadName.SYSTEM_LICENSES].build())
        if url is None:
            return {}, f"{self.client.root} does not end in /sharing/rest, so {where} is unknown"
        try:
            raw = await self.client.get_json(url)
            return records.level_quotas(raw), None
        except ForbiddenError as refused:
            access = READS[ReadName.SYSTEM_LICENSES].access.text
            who = portal.username or "the signed-in account"
            return {}, f"{who} may not read {where} ({refused.message}); reading it needs {access}"
        except NotFoundError as missing:
            return {}, f"the portal does not serve {where} ({missing.message})"
        except LiveRecordError as unreadable:
            return {}, str(unreadable)

    async def webhooks(self) -> dict[str, Webhook]:
        if not self.needs.webhooks:
            return {}
        read = self.pages(ReadName.ORG_WEBHOOKS)
        if self.needs.everything:
            raw = await _tolerant(read, [])
        else:
            raw = await self.permitted(ORGANIZATION_WEBHOOK.every(), read, [])
        listed = self.kept(raw, records.webhook)
        return {w.id: w for w in self.distinct(listed, "id", _id, _webhook_address)}

    async def tasks(self) -> dict[str, list[Task]]:
        """Tasks by owner; an owner the portal does not know is left out."""
        owners = sorted(self.needs.task_owners)
        found = await gather(*(self.user_tasks(u) for u in owners))
        return {user: tasks for user, tasks in zip(owners, found, strict=True) if tasks is not None}

    async def user_tasks(self, user: str) -> list[Task] | None:
        try:
            raw = await self.pages(ReadName.TASKS, username=user)
        except NotFoundError:
            return None  # no such user
        except ForbiddenError as refused:
            self.unread[f"{TASK_RUN.below(user)}/*"] = refused.message
            return None
        wanted = self.needs.task_owners[user]
        where = f"a task of {user}"
        identified = [
            (tid, t) for t in raw if (tid := self.readable(partial(records.entry_id, t, where)))
        ]
        distinct = self.distinct(identified, "id", _first, lambda pair: TASK.of(user, pair[0]))
        covered = [(tid, t) for tid, t in distinct if "*" in wanted or tid in wanted]
        runs = await gather(
            *(self.pages(ReadName.RUNS, username=user, taskId=tid) for tid, _ in covered)
        )
        built = (
            self.readable(partial(records.task, t, user, r))
            for (_, t), r in zip(covered, runs, strict=True)
        )
        return sorted((t for t in built if t is not None), key=lambda t: t.id)


@contextmanager
def _who_may(read: ReadName) -> Iterator[None]:
    """A refused read (403) says who may make it, as the reads table does: a real portal's
    message names no privilege, and the fix is an account that holds one."""
    try:
        yield
    except ForbiddenError as refused:
        needed = f"reading it needs {READS[read].access.text}"
        raise ForbiddenError(
            refused.url,
            refused.code,
            refused.message,
            refused.messageCode,
            (*refused.details, needed),
        ) from None


def _role_address(role: Role) -> str:
    return ROLE.of(role.name)


def _username(member: Member) -> str:
    return member.username


def _member_address(member: Member) -> str:
    return MEMBER.of(member.username)


def _id(record: Webhook) -> str:
    return record.id


def _webhook_address(webhook: Webhook) -> str:
    return ORGANIZATION_WEBHOOK.of(webhook.id)


def _first(pair: tuple[str, Any]) -> str:
    return pair[0]


async def _tolerant(read: Awaitable[T], fallback: T) -> T:
    """The read's answer, or `fallback` when the portal refuses or fails it."""
    try:
        return await read
    except (ServiceError, UserError):
        return fallback
