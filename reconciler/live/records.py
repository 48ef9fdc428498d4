"""Wire objects of the live API (docs/rules.md §A) → the normalized records of
`reconciler.state`, every value converted by `reconciler.values`.

Pure functions of one JSON object each, so the reader stays about *what* to read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from reconciler.address_forms import MEMBER, ORGANIZATION_WEBHOOK, ROLE, TASK, TASK_RUN
from reconciler.catalog import BUILTIN_ROLES, LEVEL_ONE_PRIVILEGES, PREBUILT_ROLES
from reconciler.errors import LiveRecordError, UserError
from reconciler.operations import segment_problem, shown_value
from reconciler.state import (
    NEVER_SIGNED_IN,
    Caller,
    Member,
    MemberDetail,
    PortalInfo,
    Role,
    Task,
    TaskRun,
    Webhook,
)
from reconciler.values import LATEST_MS, boolean, epoch_ms, integer
from reconciler.versions import Deployment, Platform, VersionError, release_text

Json = dict[str, Any]
T = TypeVar("T")


def field_value(
    raw: Json, name: str, convert: Callable[[Any], T], resource: str, prefix: str = ""
) -> T:
    """Field `name` of a wire record, converted; a value of the wrong kind names the
    resource and the field (the conversions refuse bad data with ValueError only)."""
    try:
        return convert(raw.get(name))
    except ValueError as exc:
        raise LiveRecordError(resource, prefix + name, str(exc)) from exc


def json_object(value: Any) -> Json:
    return value if isinstance(value, dict) else {}


def _identity(raw: Any, name: str, resource: str) -> str:
    """The identifying field of a wire record, which must be there."""
    if not isinstance(raw, dict):
        raise LiveRecordError(resource, "", f"expected a JSON object, got {type(raw).__name__}")
    value = raw.get(name)
    if value is None or str(value) == "":
        raise LiveRecordError(resource, name, "missing; every entry must have one")
    if isinstance(value, dict | list | bool):
        raise LiveRecordError(resource, name, f"{shown_value(value)} is not a string")
    return str(value)


def path_id(raw: Any, name: str, resource: str) -> str:
    """The identifying field of a wire record that later requests put in their paths (a
    role's id, a username): it must be a string a portal could issue, or nothing is
    read, planned or written for that resource (`operations.segment_problem`)."""
    value = _identity(raw, name, resource)
    problem = segment_problem(value)
    if problem is not None:
        raise LiveRecordError(resource, name, f"{shown_value(value)} is not an id ({problem})")
    return value


def portal_info(raw: Json, url: str) -> PortalInfo:
    deployment = Deployment.SELF_HOSTED if boolean(raw.get("isPortal")) else Deployment.HOSTED_CLOUD
    version = release_text(deployment, raw)
    try:
        platform = Platform.parse(deployment, version)
    except VersionError as exc:
        raise UserError(f"portal at {url} reports an unknown release: {exc}") from None
    user = json_object(raw.get("user"))
    return PortalInfo(
        id=portal_id(raw.get("id"), url),
        name=str(raw.get("name") or ""),
        platform=platform,
        username=str(user.get("username") or ""),
        caller=caller(user),
    )


def portal_id(value: Any, url: str) -> str:
    """The portal's id from `portals/self` ("" when it tells none): later paths hold it."""
    if value is None or value == "":
        return ""
    problem = segment_problem(value)
    if problem is not None:
        raise UserError(
            f"portal at {url} answered portals/self with the id {shown_value(value)}, not an"
            f" id a portal issues ({problem}); nothing was read or sent with it"
        )
    return str(value)


def caller(user: Json) -> Caller | None:
    """The signed-in member of `portals/self`; None when the portal names nobody. A value
    the portal leaves out stays unknown (None), so nothing is refused on a guess."""
    username = user.get("username")
    if not username:
        return None
    privileges = user.get("privileges")
    return Caller(
        username=str(username),
        role=str(user["role"]) if user.get("role") else None,
        roleId=str(user["roleId"]) if user.get("roleId") else None,
        privileges=(
            frozenset(str(p) for p in privileges) if isinstance(privileges, list) else None
        ),
    )


def entries_of(raw_members: list[Json], username: str | None) -> list[Json]:
    """The listing's entries for `username` (none when no one is named)."""
    if not username:
        return []
    return [m for m in raw_members if isinstance(m, dict) and m.get("username") == username]


def applier(raw: Json, roles: list[Role]) -> Caller | None:
    """The member spec.applier names, as a `Caller`: its entry of the member listing says
    its role (a custom role's base role) and level; the roles listing what a custom
    role holds, of which a level-1 member keeps only the level-1 privileges. A built-in
    role other than org_admin holds no administrative privilege, which is all a
    capability looks at; org_admin holds them all (None)."""
    found = caller(raw)
    if found is None:
        return None
    custom = {r.id: r for r in roles if r.id}
    role = custom.get(found.roleId or "")
    if role is not None:
        held = role.privileges or frozenset()
        if member_level(raw, found.username) == 1:
            held &= LEVEL_ONE_PRIVILEGES
        return replace(found, privileges=frozenset(held))
    if found.privileges is None and found.role != "org_admin":
        return replace(found, privileges=frozenset())
    return found


_PREBUILT_IDS = frozenset(r.id for r in PREBUILT_ROLES)


def role(raw: Json) -> Role:
    """A role of the listing. Real portals send no `editable`: the pre-built roles, which
    cannot be changed or deleted, are the ones with the vendor's fixed ids."""
    name = _identity(raw, "name", "a role")
    role_id = path_id(raw, "id", ROLE.of(name))
    return Role(
        name=name,
        description=str(raw.get("description") or ""),
        privileges=frozenset(str(p) for p in raw.get("privileges") or ()),
        id=role_id,
        editable=role_id not in _PREBUILT_IDS,
    )


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


def member_username(raw: Any) -> str:
    return path_id(raw, "username", "a member")


def member(raw: Json, custom_names: Mapping[str, str]) -> Member:
    username = member_username(raw)
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


def entry_id(raw: Any, resource: str) -> str:
    """The `id` of a listing's entry, which it must have (later paths hold it)."""
    return path_id(raw, "id", resource)


def member_level(raw: Json, username: str) -> int | None:
    return field_value(raw, "level", integer, MEMBER.of(username))


def member_detail(username: str, user: Json, items: Json) -> MemberDetail:
    groups = [g for g in user.get("groups") or () if isinstance(g, dict)]
    return MemberDetail(
        username=username,
        ownedItems=field_value(items, "total", integer, MEMBER.of(username)) or 0,
        ownedGroups=sum(1 for g in groups if g.get("owner") == username),
        privileges=frozenset(str(p) for p in user.get("privileges") or ()),
    )


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


def webhook(raw: Json) -> Webhook:
    webhook_id = path_id(raw, "id", "an organization webhook")
    return Webhook(
        id=webhook_id,
        name=str(raw.get("name") or ""),
        active=field_value(raw, _active_key(raw), boolean, ORGANIZATION_WEBHOOK.of(webhook_id))
        is not False,
    )


def _active_key(raw: Json) -> str:
    """Portals answer `isActive` (the vendor's reference); older notes and some answers
    say `active`."""
    return "isActive" if "isActive" in raw else "active"


def task(raw: Json, owner: str, runs: list[Json]) -> Task:
    task_id = path_id(raw, "id", f"a task of {owner}")
    records = [_run(r, TASK_RUN.below(owner, task_id)) for r in runs]
    repeated = sorted(i for i, n in Counter(r.runId for r in records).items() if n > 1)
    if repeated:
        # A delete meant for one run would reach the other: neither is touched.
        where = TASK.of(owner, task_id)
        raise LiveRecordError(where, "runs", f"the run id {repeated[0]!r} is listed twice")
    records.sort(key=lambda r: (r.created, r.runId))
    return Task(id=task_id, owner=owner, runs=tuple(records))


def _run(raw: Json, where: str) -> TaskRun:
    run_id = path_id(raw, "runId", f"a run of {where}")
    return TaskRun(
        runId=run_id,
        status=str(raw.get("status") or ""),
        created=field_value(raw, "created", epoch_ms, f"{where}/{run_id}") or 0,
    )
