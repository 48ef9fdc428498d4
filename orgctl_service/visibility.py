"""Who sees which member: one rule for every read of members (`community/users/<u>`, the
user searches, the member listing).

The vendor's User page: the account "is only accessible to the user themselves or to an
organization administrator", and "users who set their access setting to private are not
visible to other organization members, except for organization administrators"; its User
Search page: "the results only contain users that the calling user has permissions to
see. Users can control this visibility by changing the access property of their user."
So, for a caller reading a member:
- the whole account (role, level, privileges, last sign-in, disabled flag, e-mail,
  licenses): the member itself, an organization administrator, or a holder of
  `portal:admin:viewUsers` ("view full member account information", rules §4.3);
- the public profile (name, description, tags, `access`, dates): another member holding
  `portal:user:viewOrgUsers` ("view organization members"), unless the member's `access`
  is `private`;
- nothing otherwise: the member answers as an unknown one (code 400, "User does not exist
  or is inaccessible."), and searches leave it out.
The member listing shows account fields only, so it takes the whole-account readers (the
reads table's `ReadAccess` for it).
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from orgctl_service.auth import holds, is_admin
from orgctl_service.world import Doc
from reconciler.operations import VIEW_USERS

VIEW_ORG_USERS = "portal:user:viewOrgUsers"

# The user object's keys a member's public profile keeps (a real organization's user
# search holds them for every member, tests/fixtures/real_portals). `orgId` stays: the
# vendor's Python client tells a colleague from an outsider by it.
PROFILE_KEYS = (
    "username",
    "id",
    "fullName",
    "firstName",
    "lastName",
    "description",
    "tags",
    "culture",
    "region",
    "units",
    "thumbnail",
    "access",
    "orgId",
    "created",
    "modified",
    "provider",
)


class Sight(Enum):
    ACCOUNT = "account"
    PROFILE = "profile"
    NOTHING = "nothing"


def sees_accounts(caller: Doc, portal: Doc) -> bool:
    return is_admin(caller) or holds(caller, portal, VIEW_USERS)


def sight(caller: Doc, member: Doc, portal: Doc) -> Sight:
    """What `caller` may see of `member`."""
    if caller["username"] == member["username"] or sees_accounts(caller, portal):
        return Sight.ACCOUNT
    if member.get("access", "org") == "private" or not holds(caller, portal, VIEW_ORG_USERS):
        return Sight.NOTHING
    return Sight.PROFILE


def shown(view: dict[str, Any], seen: Sight) -> dict[str, Any]:
    """`view` (a user object) cut to what `seen` allows."""
    if seen is Sight.ACCOUNT:
        return view
    return {key: view[key] for key in PROFILE_KEYS if key in view}
