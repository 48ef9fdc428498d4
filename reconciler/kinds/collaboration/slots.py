"""Collaboration's own slots in the desired and the live state, which each part of the
package reads (its planning, export and adoption are loaded only when they run)."""

from __future__ import annotations

from reconciler.state import Collaboration, LiveState, Side, StateKey

NAME = "Collaboration"

# The declared collaborations, by id; the portal's, by id (only the declared ones filled
# with their workspaces, schedules and invitations, unless the whole portal is read).
DECLARED: StateKey[dict[str, Collaboration]] = StateKey(NAME, dict)
LIVE: StateKey[dict[str, Collaboration]] = StateKey(NAME, dict)


def side_of(collaboration: Collaboration, live: LiveState) -> Side:
    """The portal hosts a collaboration whose host portal id is its own (docs/rules.md §5
    decides who may call what)."""
    return "host" if collaboration.hostPortalId == live.portal.id else "guest"
