"""Talking to a live portal: the client (credentials, envelopes, retries, paging) and the
reader that turns what the portal answers into a `LiveState`."""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from reconciler.lazy import exports as _exports
from reconciler.lazy import listing as _listing

if _TYPE_CHECKING:
    from reconciler.live.client import PortalClient, client_for
    from reconciler.live.reader import Scope, read_live

# Imported on first use: a kind's converters and reads (`live.records`, `live.errors`)
# are loaded at validate, which needs neither the HTTP client nor the reader.
_HOMES = {
    "PortalClient": "client",
    "client_for": "client",
    "Scope": "reader",
    "read_live": "reader",
}
__getattr__ = _exports(__name__, _HOMES)
__dir__ = _listing(globals(), _HOMES)

__all__ = ["PortalClient", "Scope", "client_for", "read_live"]
