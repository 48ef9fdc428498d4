"""The whole service state in memory: plain JSON-able documents, one per portal and per
collaboration, plus the clock and the issued tokens. `store` persists exactly these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reconciler.versions import Platform

Doc = dict[str, Any]


@dataclass
class World:
    clock: int
    portals: dict[str, Doc] = field(default_factory=dict)  # by portal id
    collaborations: dict[str, Doc] = field(default_factory=dict)  # by collaboration id
    # SHA-256 of a token (`auth.token_key`) -> {portalId, username, expires, boundTo}
    tokens: dict[str, Doc] = field(default_factory=dict)
    # Whether the state file this world was seeded from fixes the clock (`clock:`); None
    # when it was loaded from the database (never persisted).
    clock_fixed: bool | None = field(default=None, repr=False)
    # Listings kept sorted between requests (never persisted; `sorted_usernames`).
    views: dict[str, tuple[int, list[str]]] = field(default_factory=dict, repr=False)

    def sorted_usernames(self, portal: Doc) -> list[str]:
        """The portal's usernames in listing order (case-insensitive). Sorting them for
        every page made reading a whole portal quadratic: the order is kept until the set
        of members changes, which only seeding and loading do (an update changes a
        member's fields, never a username), so its size tells when it is stale."""
        users = portal["users"]
        cached = self.views.get(portal["id"])
        if cached is None or cached[0] != len(users):
            cached = (len(users), sorted(users, key=str.lower))
            self.views[portal["id"]] = cached
        return cached[1]

    def portal_by_key(self, url_key: str) -> Doc | None:
        for portal in self.portals.values():
            if portal["urlKey"] == url_key:
                return portal
        return None


def portal_platform(portal: Doc) -> Platform:
    return Platform.parse(portal["deployment"], portal["version"])
