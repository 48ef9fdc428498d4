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

    def portal_by_key(self, url_key: str) -> Doc | None:
        for portal in self.portals.values():
            if portal["urlKey"] == url_key:
                return portal
        return None


def portal_platform(portal: Doc) -> Platform:
    return Platform.parse(portal["deployment"], portal["version"])
