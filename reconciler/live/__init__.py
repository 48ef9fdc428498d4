"""Talking to a live portal: the client (credentials, envelopes, retries, paging) and the
reader that turns what the portal answers into a `LiveState`."""

from reconciler.live.client import PortalClient, client_for
from reconciler.live.reader import Scope, read_live

__all__ = ["PortalClient", "Scope", "client_for", "read_live"]
