"""Organization reads the vendor's clients make beside `portals/self`: the settings
(`portals/self/settings`, `GIS.admin`'s org settings) and the subscription
(`portals/self/subscriptionInfo`, read on a hosted-cloud organization), and the check
an app makes that a member may use it (`oauth2/validateAppAccess`).

The service keeps none of these settings, so the answers hold the keys clients read with
the values of an organization that never changed them.
"""

from __future__ import annotations

from typing import Any

from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError
from orgctl_service.oauth import REGISTERED_APPS
from orgctl_service.rules import check_portal_id

_NO_QUOTA = -1


def portal_settings(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    return {
        "allowedRedirectUris": [],
        "allowedOrigins": [],
        "informationalBanner": {"text": "", "bgColor": "", "fontColor": "", "enabled": False},
        "mfaEnabled": False,
        "userDefaultSettings": {"role": "org_user", "groups": []},
    }


def subscription_info(ctx: Ctx) -> dict[str, Any]:
    """The organization's subscription: its id and state, and how many members each
    level may hold (-1 where no quota is set)."""
    check_portal_id(ctx)
    quotas = ctx.portal.get("levelQuotas") or {}
    per_level = {level: int(quotas.get(level, _NO_QUOTA)) for level in ("1", "2")}
    total = sum(per_level.values()) if _NO_QUOTA not in per_level.values() else _NO_QUOTA
    return {
        "id": ctx.portal["id"],
        "type": "In House",
        "state": "active",
        "expDate": _NO_QUOTA,
        "maxUsers": total,
        "maxUsersPerLevel": per_level,
        "availableCredits": _NO_QUOTA,
    }


def validate_app_access(ctx: Ctx) -> dict[str, Any]:
    """Whether the token's member may use the app `client_id`. Every member may use the
    apps the portal registers; a Viewer sees them in view-only mode."""
    client_id = (ctx.params.text("client_id") or ctx.params.text("clientId") or "").strip()
    if client_id not in REGISTERED_APPS:
        raise ApiError(400, "GWM_0007", "Invalid request")
    return {"valid": True, "viewOnlyUserTypeApp": int(ctx.user["level"]) == 1}
