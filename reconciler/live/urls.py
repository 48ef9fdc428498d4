"""Which portal URLs orgctl will talk to: https, or plain http on a loopback host."""

from __future__ import annotations

import httpx

from reconciler.addresses import is_loopback
from reconciler.errors import UserError


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


def shown(url: str | httpx.URL) -> str:
    """A URL for messages: without its query string (which never holds a secret anyway)."""
    return str(url).split("?", 1)[0]


def join(root: str, path: str) -> str:
    """`path` under `root`, unless `path` is already absolute."""
    if path.startswith(("http://", "https://")):
        return path
    return root.rstrip("/") + "/" + path.lstrip("/")


SHARING_ROOT = "/sharing/rest"


def portal_admin_url(root: str, path: str) -> str | None:
    """`path` under the Portal Administrator API, which a portal serves beside its sharing
    REST root (`<portal>/sharing/rest` → `<portal>/portaladmin`); None when `root` is not
    such a root, and the place is unknown."""
    base = root.rstrip("/")
    if not base.endswith(SHARING_ROOT):
        return None
    return join(base.removesuffix(SHARING_ROOT) + "/portaladmin", path)
