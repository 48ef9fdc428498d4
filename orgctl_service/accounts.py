"""A member as the Sharing API's user object shows it (the user searches,
`community/users/<u>`, `community/self`, the caller in `portals/self`).

Real organizations answer every user object with the same keys and JSON types, and
clients read them without checking (REST JS's test mocks, captured from a hosted-cloud
organization, are the reference kept in tests/fixtures/real_portals): credits are numbers
(-1 when the organization does not budget them), `level` is a string, `lastLogin` is -1
for a member who never signed in, absent text is null. The service keeps no profile
beyond a member's name and role, so the profile keys carry those neutral values.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

from orgctl_service.license_types import type_of
from orgctl_service.world import Doc
from reconciler.operations import OPERATIONS, OperationName
from reconciler.versions import Platform

NEVER = -1  # `lastLogin` of a member who never signed in; credits not budgeted
ACCESS_LEVELS = ("private", "org", "public")  # a member's `access`: who may see it (`visibility`)


# The keys whose value is the same for every member (`profile` adds the rest): built
# once, since a listing page shapes a hundred members.
_NEUTRAL: dict[str, Any] = {
    "availableCredits": NEVER,
    "assignedCredits": NEVER,
    "preferredView": None,
    "description": None,
    "idpUsername": None,
    "favGroupId": None,
    "mfaEnabled": False,
    "access": "org",
    "storageUsage": 0,
    "storageQuota": 0,
    "culture": "en-US",
    "region": None,
    "units": "english",
    "thumbnail": None,
    "provider": "arcgis",
    "udn": None,
    "userType": "arcgisonly",
    "validateUserProfile": False,
    "cultureFormat": None,
}


def profile(user: Doc, portal: Doc) -> dict[str, Any]:
    """The user object's profile keys, as a real organization fills them."""
    first, _, last = str(user["fullName"]).partition(" ")
    return {
        **_NEUTRAL,
        "id": member_id(user, portal),
        "firstName": first,
        "lastName": last,
        "email": str(user.get("email") or ""),
        # what the member's profile update wrote (`members.update_user`), else neutral
        "access": str(user.get("access") or "org"),
        "description": user.get("description") or None,
        "culture": user.get("culture") or _NEUTRAL["culture"],
        "region": user.get("region") or None,
        "tags": list(user.get("tags") or []),
        "groups": [],
        "modified": user["created"],
        **user_type(user, portal),
    }


def last_login(user: Doc) -> int:
    """Epoch ms of the member's last sign-in; -1 when never (or in an older database)."""
    return int(user.get("lastLogin", NEVER))


def user_type(user: Doc, portal: Doc) -> dict[str, Any]:
    """User types replaced levels (10.7; hosted-cloud long since): where a portal has
    them a member's answer names one (`license_types`): the one set, else the level-2
    Creator or the level-1 Viewer."""
    if has_levels(portal["deployment"], portal["version"]):
        return {}
    return {"userLicenseTypeId": type_of(user).id}


@cache
def has_levels(deployment: str, version: str) -> bool:
    """Whether the release still has member levels (and so no user types yet)."""
    platform = Platform.parse(deployment, version)
    return OPERATIONS[OperationName.UPDATE_USER_LEVEL].problem(platform) is None


def member_id(user: Doc, portal: Doc) -> str:
    """A stable 32-hex-digit id, the form real portals give members."""
    seed = f"{portal['id']}/{user['username']}".encode()
    return hashlib.sha256(seed).hexdigest()[:32]


def default_admins(portal: Doc) -> list[Doc]:
    """The members assigned the default administrator role, the built-in Administrator
    role (`org_admin`), in the state's order (docs/rules.md §5). A custom role never
    makes one, whatever privileges it holds."""
    return [user for user in portal["users"].values() if user["role"] == "org_admin"]
