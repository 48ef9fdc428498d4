"""Members' live side: the converters of the member listing's entries, a member's details
and the licenses' level quotas, and their read in the reader's one round of requests.

Only what the manifests need is read: per-member details only for members whose level
changes, the quotas only when levels are declared. A member's custom role is named by
the roles listing, which is shorter and read alongside (`LiveRead.once`, Role's read):
each page of members is made into records as it comes, once the roles are in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from operator import attrgetter
from typing import Any, TypeVar

from reconciler.address_forms import MEMBER
from reconciler.catalog import BUILTIN_ROLES, LEVEL_ONE_PRIVILEGES
from reconciler.errors import LiveRecordError
from reconciler.kind import Fill, LiveRead
from reconciler.kinds.role.live import listed_roles
from reconciler.live.concurrency import first_failure, gather
from reconciler.live.errors import ForbiddenError, NotFoundError
from reconciler.live.records import Json, caller, field_value, json_object, path_id
from reconciler.live.urls import portal_admin_url
from reconciler.operations import OPERATIONS, READS, OperationName, ReadName, shown_value
from reconciler.state import (
    NEVER_SIGNED_IN,
    Caller,
    DesiredState,
    LiveState,
    Member,
    MemberDetail,
)
from reconciler.values import LATEST_MS, boolean, epoch_ms, integer

T = TypeVar("T")

# --- converters ----------------------------------------------------------------------------


def member_role(raw: Json, custom_names: Mapping[str, str], username: str) -> str | None:
    """A custom role's *name* when `roleId` is a custom role, else the built-in id."""
    role_id = raw.get("roleId")
    if role_id is not None and not isinstance(role_id, str):
        problem = f"expected a role id, got {type(role_id).__name__}"
        raise LiveRecordError(MEMBER.of(username), "roleId", problem)
    if role_id in custom_names:
        return custom_names[str(role_id)]
    if role_id in BUILTIN_ROLES:
        return str(role_id)
    return str(raw["role"]) if raw.get("role") is not None else None


def member(raw: Json, custom_names: Mapping[str, str]) -> Member:
    username = path_id(raw, "username", "a member")
    return Member(
        username=username,
        role=member_role(raw, custom_names, username),
        level=member_level(raw, username),
        disabled=account_disabled(raw.get("disabled")),
        lastLogin=last_login(raw.get("lastLogin")),
    )


# A listing holds up to 100,000 members: what portals answer (a boolean, milliseconds)
# is taken at once, and only other spellings go through the general conversions.


def account_disabled(value: Any) -> bool | None:
    if value is None or value is True or value is False:
        return value
    return _lenient(boolean, value)


def last_login(value: Any) -> int | None:
    """Unix ms of the last sign-in, NEVER_SIGNED_IN for the portals' -1, None unknown."""
    if type(value) is int and 0 <= value <= LATEST_MS:
        return value
    if value == NEVER_SIGNED_IN or value == str(NEVER_SIGNED_IN):
        return NEVER_SIGNED_IN
    return _lenient(epoch_ms, value)


def _lenient(convert: Callable[[Any], T], value: Any) -> T | None:
    """`convert(value)`, or None (unknown) when the portal answered something else: these
    fields only inform the access report, so a bad one must not make the member
    unreadable and keep it out of every plan."""
    try:
        return convert(value)
    except ValueError:
        return None


def member_level(raw: Json, username: str) -> int | None:
    # What portals answer ("2", or 2) taken at once, and the member's address built only
    # for an error: this runs for each member of a listing.
    value = raw.get("level")
    if type(value) is int:
        return value
    if type(value) is str and value.isascii() and value.isdigit():
        return int(value)
    try:
        return integer(value)
    except ValueError as exc:
        raise LiveRecordError(MEMBER.of(username), "level", str(exc)) from exc


def member_detail(username: str, user: Json, items: Json) -> MemberDetail:
    groups = [g for g in user.get("groups") or () if isinstance(g, dict)]
    return MemberDetail(
        username=username,
        ownedItems=field_value(items, "total", integer, MEMBER.of(username)) or 0,
        ownedGroups=sum(1 for g in groups if g.get("owner") == username),
        privileges=frozenset(str(p) for p in user.get("privileges") or ()),
    )


def entries_of(raw_members: list[Json], username: str | None) -> list[Json]:
    """The listing's entries for `username` (none when no one is named)."""
    if not username:
        return []
    return [m for m in raw_members if isinstance(m, dict) and m.get("username") == username]


def applier(raw: Json, custom: Mapping[str, frozenset[str]]) -> Caller | None:
    """The member spec.applier names, as a `Caller`: its entry of the member listing says
    its role (a custom role's base role) and level; `custom` (each custom role's
    privileges, by id: the roles listing's) what a custom role holds, of which a level-1
    member keeps only the level-1 privileges. A built-in role other than org_admin holds
    no administrative privilege, which is all a capability looks at; org_admin holds them
    all (None)."""
    found = caller(raw)
    if found is None:
        return None
    held = custom.get(found.roleId or "")
    if held is not None:
        if member_level(raw, found.username) == 1:
            held &= LEVEL_ONE_PRIVILEGES
        return replace(found, privileges=frozenset(held))
    if found.privileges is None and found.role != "org_admin":
        return replace(found, privileges=frozenset())
    return found


LICENSES = "portaladmin/system/licenses"


def level_quotas(raw: Json) -> dict[int, int]:
    """The members each level may hold, from the licenses resource's `features` (one per
    level since 10.5: `level` "1" or "2", `maximumRegisteredMembers`). A level the license
    does not list has no quota orgctl knows."""
    features = raw.get("features")
    if not isinstance(features, list):
        raise LiveRecordError(LICENSES, "features", f"{shown_value(features)} is not a list")
    quotas: dict[int, int] = {}
    for n, feature in enumerate(features):
        where = f"features[{n}]."
        entry = json_object(feature)
        level = field_value(entry, "level", integer, LICENSES, where)
        most = field_value(entry, "maximumRegisteredMembers", integer, LICENSES, where)
        if most is not None and most < 0:
            raise LiveRecordError(LICENSES, where + "maximumRegisteredMembers", f"{most} < 0")
        if level in (1, 2) and most is not None:
            quotas[level] = most
    return quotas


# --- the read ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Wanted:
    """What the manifests ask of the members' read (nothing of an export)."""

    expected: int = 0  # the members declared, to ask the listing's first pages at once
    levels: Mapping[str, int] | None = None  # username -> desired level
    applier: str | None = None  # the member whose capabilities the plan predicts

    @classmethod
    def of(cls, desired: DesiredState | None) -> Wanted:
        if desired is None:
            return cls()
        levels = {u: m.level for u, m in desired.members.items() if m.level is not None}
        return cls(len(desired.members), levels, desired.portal.applier)


async def read(source: LiveRead) -> Fill:
    wanted = Wanted.of(source.desired)
    try:
        async with asyncio.TaskGroup() as group:
            members = group.create_task(_members(source, wanted))
            licensed = group.create_task(_level_quotas(source, wanted))
    except BaseExceptionGroup as failed:
        raise first_failure(failed) from None
    (named, details, applying), (quotas, unread_quotas) = members.result(), licensed.result()

    def fill(live: LiveState) -> None:
        live.members = named
        live.memberDetails = details
        live.applier = applying
        live.portal = replace(live.portal, levelQuotas=quotas, levelQuotasUnread=unread_quotas)

    return fill


async def _members(
    source: LiveRead, wanted: Wanted
) -> tuple[dict[str, Member], dict[str, MemberDetail], Caller | None]:
    """Members made into records page by page as they come, each once; the details of
    those whose level changes; the applier's entry as a `Caller`."""
    named_by_id: dict[str, str] | None = None
    applying: list[dict[str, Any]] = []

    async def convert(page: list[dict[str, Any]]) -> list[Member]:
        nonlocal named_by_id
        if named_by_id is None:
            named_by_id = {r.id: r.name for r in await source.once(listed_roles) if r.id}
        applying.extend(entries_of(page, wanted.applier))
        return source.kept(page, partial(member, custom_names=named_by_id))

    listed = await source.converted_pages(ReadName.MEMBERS, convert, expected=wanted.expected)
    found = source.distinct(listed, "username", attrgetter("username"), _address)
    levels = wanted.levels or {}
    changing = [m.username for m in found if m.username in levels and m.level != levels[m.username]]
    details = await gather(*(_details(source, u) for u in changing))
    return (
        {m.username: m for m in found},
        {d.username: d for d in details if d is not None},
        applier(applying[0], await _custom_privileges(source)) if applying else None,
    )


async def _custom_privileges(source: LiveRead) -> dict[str, frozenset[str]]:
    return {r.id: r.privileges or frozenset() for r in await source.once(listed_roles) if r.id}


async def _details(source: LiveRead, username: str) -> MemberDetail | None:
    """What decides whether a level change is refused; None when the signed-in member
    may not read it (the portal checks the change when it is sent)."""
    reads = gather(
        source.one(ReadName.MEMBER, username=username),
        source.one(ReadName.MEMBER_ITEMS, {"num": 1}, username=username),
    )
    found = await source.permitted(MEMBER.of(username), reads, None)
    if found is not None and "privileges" not in found[0]:
        # A colleague's public profile: the portal shows the account (privileges,
        # groups, licenses) only to the member, administrators and viewUsers holders.
        source.unread[MEMBER.of(username)] = "the portal showed only the member's profile"
        return None
    return member_detail(username, *found) if found is not None else None


async def _level_quotas(source: LiveRead, wanted: Wanted) -> tuple[dict[int, int], str | None]:
    """How many members each level may hold, where the vendor publishes it (the Portal
    Administrator API's licenses resource, beside the sharing root), when the
    manifests declare levels on a release that has them: (quotas, why they could not
    be read). An account that may not read it plans on; the plan says the quotas
    were not checked, and assumes none."""
    if not wanted.levels:
        return {}, None
    portal = await source.portal()
    if OPERATIONS[OperationName.UPDATE_USER_LEVEL].problem(portal.platform) is not None:
        return {}, None
    root = source.client.root
    url = portal_admin_url(root, READS[ReadName.SYSTEM_LICENSES].build())
    if url is None:
        return {}, f"{root} does not end in /sharing/rest, so {LICENSES} is unknown"
    try:
        raw = await source.client.get_json(url)
        return level_quotas(raw), None
    except ForbiddenError as refused:
        access = READS[ReadName.SYSTEM_LICENSES].access.text
        who = portal.username or "the signed-in account"
        return {}, f"{who} may not read {LICENSES} ({refused.message}); reading it needs {access}"
    except NotFoundError as missing:
        return {}, f"the portal does not serve {LICENSES} ({missing.message})"
    except LiveRecordError as unreadable:
        return {}, str(unreadable)


def _address(member: Member) -> str:
    return MEMBER.of(member.username)
