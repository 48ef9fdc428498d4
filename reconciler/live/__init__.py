"""Talking to a live portal: the client (credentials, envelopes, retries, paging) and the
reader that turns what the portal answers into a `LiveState`."""

from typing import TYPE_CHECKING

from reconciler.lazy import exports

if TYPE_CHECKING:
    from reconciler.live.client import PortalClient, client_for
    from reconciler.live.reader import Scope, read_live

# Imported on first use: a kind's converters and reads (`live.records`, `live.errors`)
# are loaded at validate, which needs neither the HTTP client nor the reader.
__getattr__ = exports(
    __name__,
    {"PortalClient": "client", "client_for": "client", "Scope": "reader", "read_live": "reader"},
)

__all__ = ["PortalClient", "Scope", "client_for", "read_live"]
