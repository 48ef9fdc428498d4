"""Wire objects of the live API (docs/rules.md §A) → the normalized records of
`reconciler.state`, every value converted by `reconciler.values`.

Pure functions of one JSON object each, so the reader stays about *what* to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.catalog import BUILTIN_ROLES, WEBHOOK_SETTINGS
from reconciler.errors import UserError
from reconciler.state import (
    Collaboration,
    GroupLink,
    MemberDetail,
    PortalInfo,
    Role,
    Schedule,
    Task,
    TaskRun,
    Webhook,
    Workspace,
)
from reconciler.values import boolean, epoch_ms, int_keys, integer, number
from reconciler.versions import Deployment, Platform, VersionError, release_text

Json = dict[str, Any]


def portal_info(raw: Json, url: str) -> PortalInfo:
    deployment = Deployment.SELF_HOSTED if boolean(raw.get("isPortal")) else Deployment.HOSTED_CLOUD
    version = release_text(deployment, raw)
    try:
        platform = Platform.parse(deployment, version)
    except VersionError as exc:
        raise UserError(f"portal at {url} reports an unknown release: {exc}") from None
    user = raw.get("user") or {}
    return PortalInfo(
        id=str(raw.get("id") or ""),
        name=str(raw.get("name") or ""),
        platform=platform,
        username=str(user.get("username") or ""),
        levelQuotas={k: int(v) for k, v in int_keys(raw.get("levelQuotas")).items()},
        levelDisallowedApps={
            k: frozenset(str(a) for a in v or ())
            for k, v in int_keys(raw.get("levelDisallowedApps")).items()
        },
    )


def role(raw: Json) -> Role:
    return Role(
        name=str(raw["name"]),
        description=str(raw.get("description") or ""),
        privileges=frozenset(str(p) for p in raw.get("privileges") or ()),
        id=str(raw["id"]),
        editable=boolean(raw.get("editable", True)) is not False,
    )


def member_role(raw: Json, custom_names: Mapping[str, str]) -> str | None:
    """A custom role's *name* when `roleId` is a custom role, else the built-in id."""
    role_id = raw.get("roleId")
    if role_id in custom_names:
        return custom_names[str(role_id)]
    if role_id in BUILTIN_ROLES:
        return str(role_id)
    return str(raw["role"]) if raw.get("role") is not None else None


def member_detail(username: str, user: Json, items: Json) -> MemberDetail:
    groups = [g for g in user.get("groups") or () if isinstance(g, dict)]
    return MemberDetail(
        username=username,
        ownedItems=integer(items.get("total")) or 0,
        ownedGroups=sum(1 for g in groups if g.get("owner") == username),
        appLicenses=frozenset(_license(a) for a in user.get("appLicenses") or ()),
        privileges=frozenset(str(p) for p in user.get("privileges") or ()),
    )


def _license(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("id") or value.get("appId") or value.get("name"))
    return str(value)


def collaboration(raw: Json) -> Collaboration:
    host = raw.get("collaborationHostPortalId")
    return Collaboration(
        id=str(raw["id"]),
        name=raw.get("name"),
        hostPortalId=str(host) if host is not None else None,
    )


def workspace(raw: Json, portal_id: str, schedule: Schedule | None) -> Workspace:
    config = raw.get("config") or {}

    def setting(name: str) -> Any:
        return config.get(name, raw.get(name))

    return Workspace(
        id=str(raw["id"]),
        name=raw.get("name"),
        description=raw.get("description"),
        maxItemSizeInMB=number(setting("maxItemSizeInMB")),
        maxReplicationPackageSizeInMB=number(setting("maxReplicationPackageSizeInMB")),
        copyByRefIfCopyFail=boolean(setting("copyByRefIfCopyFail")),
        groupLink=group_link(raw, portal_id),
        schedule=schedule,
    )


def group_link(raw: Json, portal_id: str) -> GroupLink | None:
    """THIS portal's link: the `participantGroupLinks` entry carrying its id."""
    for link in raw.get("participantGroupLinks") or ():
        if isinstance(link, dict) and str(link.get("portalId")) == portal_id:
            config = link.get("config") or {}
            bidirectional = boolean(config.get("enableFeatureServiceBidirectionalSync"))
            return GroupLink(
                portalGroupId=link.get("portalGroupId"),
                enableRealtimeSync=boolean(config.get("enableRealtimeSync")),
                copyFeatureServiceData=boolean(config.get("copyFeatureServiceData")),
                # spec §4.7: false unless set
                enableFeatureServiceBidirectionalSync=bool(bidirectional),
            )
    return None


def schedule(raw: Json) -> Schedule:
    return Schedule(
        startTime=epoch_ms(raw.get("startTime")),
        interval=integer(raw.get("interval")),
        repeatCount=integer(raw.get("repeatCount")),
        timesTriggered=integer(raw.get("timesTriggered")),
    )


def webhook(raw: Json) -> Webhook:
    return Webhook(
        id=str(raw["id"]),
        name=str(raw.get("name") or ""),
        active=boolean(raw.get("active", True)) is not False,
    )


def webhook_settings(raw: Json) -> dict[str, int] | None:
    """The five settings, defaults for those not stated; None when the answer has none."""
    if not any(name in raw for name in WEBHOOK_SETTINGS):
        return None
    return {
        name: integer(raw.get(name)) or limits.default for name, limits in WEBHOOK_SETTINGS.items()
    }


def task(raw: Json, owner: str, runs: list[Json]) -> Task:
    records = [
        TaskRun(
            runId=str(r["runId"]),
            status=str(r.get("status") or ""),
            created=epoch_ms(r.get("created")) or 0,
        )
        for r in runs
    ]
    records.sort(key=lambda r: (r.created, r.runId))
    return Task(id=str(raw["id"]), owner=owner, runs=tuple(records))
