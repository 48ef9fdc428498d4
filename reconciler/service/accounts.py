"""A member as the Sharing API's user object shows it (listings, searches,
`community/users/<u>`, `community/self`).

Real organizations answer every user object with the same keys and JSON types, and
clients read them without checking (REST JS's test mocks, captured from a hosted-cloud
organization, are the reference kept in tests/fixtures/real_portals): credits are numbers
(-1 when the organization does not budget them), `level` is a string, `lastLogin` is -1
for a member who never signed in, absent text is null. The service keeps no profile
beyond a member's name and role, so the profile keys carry those neutral values.
"""

from __future__ import annotations

import hashlib
from typing import Any

from reconciler.catalog import Feature, feature_problem
from reconciler.service.world import Doc, portal_platform

NEVER = -1  # `lastLogin` of a member who never signed in; credits not budgeted


def profile(user: Doc, portal: Doc) -> dict[str, Any]:
    """The user object's profile keys, as a real organization fills them."""
    first, _, last = str(user["fullName"]).partition(" ")
    return {
        "id": member_id(user, portal),
        "firstName": first,
        "lastName": last,
        "availableCredits": NEVER,
        "assignedCredits": NEVER,
        "preferredView": None,
        "description": None,
        "email": str(user.get("email") or ""),
        "idpUsername": None,
        "favGroupId": None,
        "lastLogin": NEVER,  # sign-ins are not recorded
        "mfaEnabled": False,
        "access": "org",
        "storageUsage": 0,
        "storageQuota": 0,
        "tags": [],
        "culture": "en-US",
        "region": None,
        "units": "english",
        "thumbnail": None,
        "modified": user["created"],
        "provider": "arcgis",
        "groups": [],
        "udn": None,
        "userType": "arcgisonly",
        "validateUserProfile": False,
        "cultureFormat": None,
        **user_type(user, portal),
    }


def user_type(user: Doc, portal: Doc) -> dict[str, Any]:
    """User types replaced levels (10.7; hosted-cloud long since): where a portal has
    them a member's answer names one, the level-2 Creator or the level-1 Viewer."""
    if feature_problem(Feature.UPDATE_USER_LEVEL, portal_platform(portal)) is None:
        return {}
    return {"userLicenseTypeId": "creatorUT" if int(user["level"]) == 2 else "viewerUT"}


def member_id(user: Doc, portal: Doc) -> str:
    """A stable 32-hex-digit id, the form real portals give members."""
    seed = f"{portal['id']}/{user['username']}".encode()
    return hashlib.sha256(seed).hexdigest()[:32]
