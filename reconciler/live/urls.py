"""Which portal URLs orgctl will talk to: https, or plain http on a loopback host."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

import httpx

from reconciler.errors import UserError


def is_loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_url(url: str) -> httpx.URL:
    """The parsed URL, or a `UserError` when it is not https on a non-loopback host."""
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise UserError(f"{url!r} is not a valid URL: {exc}") from None
    if parsed.scheme == "https" and parsed.host:
        return parsed
    if parsed.scheme == "http" and parsed.host and is_loopback(parsed.host):
        return parsed
    if parsed.scheme == "http":
        raise UserError(
            f"{shown(url)} uses plain http; https is required except on a loopback host"
        )
    raise UserError(f"{shown(url)} is not an http(s) URL of a portal")


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


def shown(url: str | httpx.URL) -> str:
    """A URL for messages: without its query string (which never holds a secret anyway)."""
    return str(url).split("?", 1)[0]


def join(root: str, path: str) -> str:
    """`path` under `root`, unless `path` is already absolute."""
    if path.startswith(("http://", "https://")):
        return path
    return root.rstrip("/") + "/" + path.lstrip("/")
