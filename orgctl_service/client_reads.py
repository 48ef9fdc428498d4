"""The reads clients make at start-up beyond orgctl's own: `community/self` (who the
token names; ArcGIS REST JS reads it to finish every sign-in), the organization's user
search (`portals/<pid>/users/search`, REST JS's `searchUsers`) and the languages the
portal supports (`portals/languages`; the vendor's Python client checks a culture
against them before `User.update`)."""

from __future__ import annotations

from typing import Any

from orgctl_service.context import Ctx
from orgctl_service.members import search_users
from orgctl_service.portal import member_detail
from orgctl_service.rules import check_portal_id


def community_self(ctx: Ctx) -> dict[str, Any]:
    """The member the token names, as `community/users/<u>` shows it to that member."""
    return member_detail(ctx.user, ctx.portal)


def org_user_search(ctx: Ctx) -> dict[str, Any]:
    """The organization's members matching `q` (the syntax of `community/users`), with
    the query echoed as real portals answer it. The documentation's sample spells the
    path `portal/<pid>/users/search`; clients send `portals/`; both are served."""
    check_portal_id(ctx)
    return {"query": ctx.params.text("q") or "", **search_users(ctx)}


# The vendor's Languages page answers a bare JSON array of these (its example lists about
# forty; the reference portal supports a few).
# https://developers.arcgis.com/rest/users-groups-and-items/languages.htm
LANGUAGES = (
    ("English", "en", "English"),
    ("French", "fr", "Français"),
    ("German", "de", "Deutsch"),
    ("Spanish", "es", "Español"),
    ("Japanese", "ja", "日本語"),
    ("Simplified Chinese", "zh-CN", "简体中文"),
)


def languages(ctx: Ctx) -> list[dict[str, str]]:
    return [
        {"language": language, "culture": culture, "localizedName": localized}
        for language, culture, localized in LANGUAGES
    ]
