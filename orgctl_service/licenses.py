"""The Portal Administrator API's license resources, where the vendor publishes how many
members each level (or user type) may hold (docs/rules.md §A, "Level quotas"):

- `portaladmin/system/licenses` up to 10.6.1: `maximumRegisteredMembers` and, from 10.5,
  `features`, one per level with its own `level`, `currentRegisteredMembers` and
  `maximumRegisteredMembers` (Required Capability: Administrator);
- `portaladmin/license` from 10.7, when user types replaced levels: `userTypes`, each with
  its `id` and counts (the default administrator role, or the Manage licenses or Add
  members privilege).

A state's `levelQuotas` are what the license allows. The Creator user type is what a
level-2 member became at 10.7 and the Viewer a level-1 one (`accounts.user_type`), so the
same figures answer both resources. A level without a quota in the state is left out of
`features`: the license says nothing of it.
"""

from __future__ import annotations

from typing import Any

from orgctl_service.accounts import has_levels
from orgctl_service.context import Ctx
from orgctl_service.errors import not_found
from orgctl_service.world import Doc

# What a license file grants for: the state does not say, so one year after the clock.
YEAR_MS = 365 * 86_400_000
LEVELS = ("1", "2")
USER_TYPES = {"1": "viewerUT", "2": "creatorUT"}


def system_licenses(ctx: Ctx) -> dict[str, Any]:
    """`portaladmin/system/licenses`: the license by level, on releases that have levels."""
    expiration, quotas, counts = _figures(ctx, levels=True)
    features = [
        {
            "level": level,
            "name": f"level{level}",
            "displayName": f"Level {level}",
            "isValid": True,
            "currentRegisteredMembers": counts[level],
            "maximumRegisteredMembers": quotas[level],
            "version": "10.5",
            "expiration": expiration,
        }
        for level in LEVELS
        if level in quotas
    ]
    return {
        "isValid": True,
        "currentRegisteredMembers": sum(counts.values()),
        "maximumRegisteredMembers": sum(quotas.values()),
        "expiration": expiration,
        "features": features,
    }


def user_type_license(ctx: Ctx) -> dict[str, Any]:
    """`portaladmin/license`: the license by user type, from 10.7."""
    expiration, quotas, counts = _figures(ctx, levels=False)
    user_types = [
        {
            "id": USER_TYPES[level],
            "maximumRegisteredMembers": quotas[level],
            "expiration": expiration,
            "currentRegisteredMembers": counts[level],
        }
        for level in LEVELS
        if level in quotas
    ]
    return {
        "currentRegisteredMembers": sum(counts.values()),
        "maximumRegisteredMembers": sum(quotas.values()),
        "version": ctx.portal["version"],
        "userTypes": user_types,
        "appBundles": [],
        "apps": [],
    }


def _figures(ctx: Ctx, levels: bool) -> tuple[int, dict[str, int], dict[str, int]]:
    """When the license expires, and the quota and the members counted per level, on a
    release whose licensing is by level (`levels`) or by user type."""
    _self_hosted(ctx.portal, levels)
    return ctx.now + YEAR_MS, _quotas(ctx.portal), _counts(ctx.portal)


def _self_hosted(portal: Doc, levels: bool) -> None:
    """Only a self-hosted portal has the Portal Administrator API; of its two license
    resources, a release answers the one of its licensing model."""
    if portal["deployment"] != "self-hosted":
        raise not_found("Resource not found")
    if has_levels(portal["deployment"], portal["version"]) != levels:
        raise not_found("Resource not found")


def _quotas(portal: Doc) -> dict[str, int]:
    return {k: int(v) for k, v in portal["levelQuotas"].items() if k in LEVELS}


def _counts(portal: Doc) -> dict[str, int]:
    counts = dict.fromkeys(LEVELS, 0)
    for user in portal["users"].values():
        counts[str(user["level"])] += 1
    return counts
