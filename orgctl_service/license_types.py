"""The user types a 10.7+ portal licenses, and which one a member holds.

A type keeps the level it replaced: the Viewer type is level 1, the others level 2 (the
vendor's license pages give each type a `level`). Apart from the handlers
(`user_types`) so the user object (`accounts`) names a member's type without importing
them.
"""

from __future__ import annotations

from dataclasses import dataclass

from orgctl_service.world import Doc


@dataclass(frozen=True, slots=True)
class UserType:
    id: str
    name: str
    level: int
    description: str


# The built-in types every 10.7+ portal licenses, as the vendor's client names them
# (`creatorUT`, `viewerUT`) and its license pages list them.
USER_TYPES = (
    UserType("creatorUT", "Creator", 2, "Create, share and manage content."),
    UserType("GISProfessionalBasicUT", "GIS Professional Basic", 2, "Creator with Pro Basic."),
    UserType("GISProfessionalStdUT", "GIS Professional Standard", 2, "Creator with Pro Std."),
    UserType("GISProfessionalAdvUT", "GIS Professional Advanced", 2, "Creator with Pro Adv."),
    UserType("viewerUT", "Viewer", 1, "View content shared with them."),
)
BY_ID = {user_type.id.lower(): user_type for user_type in USER_TYPES}
_CREATOR, _VIEWER = BY_ID["creatorut"], BY_ID["viewerut"]  # the levels' default types


def type_of(user: Doc) -> UserType:
    """The member's type: the one last set, else the level's default type."""
    level = int(user["level"])
    named = user.get("userLicenseTypeId")  # mostly none: every member of a listing asks
    chosen = BY_ID.get(str(named).lower()) if named else None
    if chosen is not None and chosen.level == level:
        return chosen
    return _CREATOR if level == 2 else _VIEWER
