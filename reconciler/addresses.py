"""What makes a portal address acceptable, shared by the validator (offline, so without
any HTTP machinery) and the client: https, or plain http on a loopback host; nothing in
the address but the address."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def extras(url: str) -> list[str]:
    """What makes `url` more than a plain address: a portal root is joined with every
    request path, so a query or fragment would swallow it, and user info would carry a
    credential. Named, never shown: the part found may be the very secret."""
    parts = urlsplit(url)
    found = (
        ("user info", "@" in parts.netloc),
        ("a query", "?" in url),
        ("a fragment", "#" in url),
    )
    return [name for name, present in found if present]
