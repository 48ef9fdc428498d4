"""Wire objects of the live API (docs/rules.md §A) → the normalized records of
`reconciler.state`, every value converted by `reconciler.values`.

Pure functions of one JSON object each, so the reader stays about *what* to read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from reconciler.address_forms import ORGANIZATION_WEBHOOK, TASK, TASK_RUN
from reconciler.errors import LiveRecordError, UserError
from reconciler.operations import segment_problem, shown_value
from reconciler.state import Caller, PortalInfo, Task, TaskRun, Webhook
from reconciler.values import boolean, epoch_ms
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


def identity(raw: Any, name: str, resource: str) -> str:
    """The identifying field of a wire record, which must be there."""
    if not isinstance(raw, dict):
        raise LiveRecordError(resource, "", f"expected a JSON object, got {type(raw).__name__}")
    value = raw.get(name)
    if type(value) is str and value:
        return value  # what every entry of a listing holds, taken at once
    if value is None or str(value) == "":
        raise LiveRecordError(resource, name, "missing; every entry must have one")
    if isinstance(value, dict | list | bool):
        raise LiveRecordError(resource, name, f"{shown_value(value)} is not a string")
    return str(value)


def path_id(raw: Any, name: str, resource: str) -> str:
    """The identifying field of a wire record that later requests put in their paths (a
    role's id, a username): it must be a string a portal could issue, or nothing is
    read, planned or written for that resource (`operations.segment_problem`)."""
    value = identity(raw, name, resource)
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


def entry_id(raw: Any, resource: str) -> str:
    """The `id` of a listing's entry, which it must have (later paths hold it)."""
    return path_id(raw, "id", resource)


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
