"""Which origins may receive a credential: `ORGCTL_TRUSTED_ORIGINS`, set outside the
repository (a CI variable, the shell), never read from manifests.

A manifest is data that a pull request can change; the credentials in the environment
are not. Unset, credentials follow the manifests' URLs. Set, the portal client sends no
request at all (so no password, token or token exchange) to an origin that is not listed;
loopback is not exempt.

The value is comma-separated `scheme://host[:port]`. An entry written `NAME=origin`
binds that origin to the portal whose `metadata.name` is NAME (compared as the
`ORGCTL_<NAME>_*` variables are named): only that portal's credentials go there, and that
portal's go nowhere else, so a branch that gives one portal's folder another portal's
name cannot send the other portal's secrets to the first one's host. A plain entry is
trusted for every portal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import httpx

from reconciler.environment import portal_key
from reconciler.errors import UserError
from reconciler.settings import TRUSTED_ORIGINS

TRUSTED_ORIGINS_ENV = TRUSTED_ORIGINS.name
DEFAULT_PORTS = {"https": 443, "http": 80}
_BINDING = re.compile(r"^\s*([^=/:]+?)\s*=\s*(.+)$")

CI_WARNING = (
    f"{TRUSTED_ORIGINS_ENV} is not set: credentials follow the URLs in the manifests, so a"
    " change to a Portal's url or adminUrl sends them to whatever host it names. Set"
    f" {TRUSTED_ORIGINS_ENV} (a CI variable, never a manifest) to your portals' origins,"
    " e.g. https://gis.example.com"
)


def origin_of(url: str | httpx.URL) -> str:
    """`scheme://host[:port]`, lower-case, the port said only when not the default."""
    parsed = url if isinstance(url, httpx.URL) else httpx.URL(url)
    scheme, host = parsed.scheme.lower(), parsed.host.lower()
    if ":" in host:
        host = f"[{host}]"  # IPv6, as it is written in a URL
    port = parsed.port
    return (
        f"{scheme}://{host}"
        if port in (None, DEFAULT_PORTS.get(scheme))
        else (f"{scheme}://{host}:{port}")
    )


@dataclass(frozen=True, slots=True)
class TrustedOrigins:
    shared: frozenset[str] = frozenset()
    bound: Mapping[str, frozenset[str]] = field(default_factory=dict)  # portal key -> origins

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> TrustedOrigins | None:
        """The variable's origins; None when it is unset or empty (nothing enforced)."""
        raw = (env.get(TRUSTED_ORIGINS_ENV) or "").strip()
        if not raw:
            return None
        shared: set[str] = set()
        bound: dict[str, set[str]] = {}
        for entry in (e.strip() for e in raw.split(",")):
            if not entry:
                continue
            binding = _BINDING.match(entry)
            if binding:
                bound.setdefault(portal_key(binding.group(1)), set()).add(_parsed(binding[2]))
            else:
                shared.add(_parsed(entry))
        return cls(frozenset(shared), {k: frozenset(v) for k, v in bound.items()})

    def allows(self, origin: str, portal: str | None) -> bool:
        if origin in self.shared:
            return True
        owners = [key for key, origins in self.bound.items() if origin in origins]
        if portal is None:
            return bool(owners)  # no Portal document (export): the command line named it
        return portal_key(portal) in owners

    def listed_for(self, portal: str | None) -> list[str]:
        """The origins `portal`'s credentials may go to, for messages."""
        mine = self.bound.get(portal_key(portal), frozenset()) if portal else frozenset()
        everyone = set().union(*self.bound.values()) if portal is None and self.bound else set()
        return sorted(self.shared | mine | everyone)


def _parsed(entry: str) -> str:
    """An entry as `origin_of` spells it, or a `UserError` naming the entry."""
    text = entry.strip()
    try:
        parsed = httpx.URL(text)
    except httpx.InvalidURL:
        parsed = None
    if (
        parsed is None
        or parsed.scheme not in DEFAULT_PORTS
        or not parsed.host
        or parsed.raw_path not in (b"", b"/")
        or parsed.query
        or parsed.fragment
        or parsed.userinfo
    ):
        raise UserError(
            f"{TRUSTED_ORIGINS_ENV}: {text!r} is not an origin; write scheme://host[:port]"
            " (https://gis.example.com, https://gis.example.com:7443), or NAME=origin to"
            " bind it to one portal, separated by commas"
        )
    return origin_of(parsed)


@dataclass(frozen=True, slots=True)
class UrlSources:
    """Where the client's URLs came from, said when one is refused."""

    root: str = "the portal URL"
    admin: str = "the admin URL"
    other: str = "an answer of the portal (not the Portal's url or adminUrl)"


def refusal(
    url: str, origin: str, trusted: TrustedOrigins, portal: str | None, source: str
) -> UserError:
    """The error for a request not made: the origin, where its URL came from, the fix."""
    listed = ", ".join(trusted.listed_for(portal)) or "none"
    whose = f" for portal {portal!r}" if portal and trusted.bound else ""
    entry = f"{portal}={origin}" if portal and trusted.bound else origin
    return UserError(
        f"refusing to send credentials to {origin}: it is not in {TRUSTED_ORIGINS_ENV}"
        f" (trusted{whose}: {listed}). The URL {_without_query(url)} comes from {source}."
        f" If that portal is yours, add {entry} to {TRUSTED_ORIGINS_ENV} (set it outside"
        " the repository: a CI variable or the shell, never a manifest)"
    )


def _without_query(url: str) -> str:
    return url.split("?", 1)[0]


def ci_warning(env: Mapping[str, str]) -> str | None:
    """The one warning plan, apply and drift give in CI when nothing binds credentials."""
    in_ci = (env.get("CI") or "").strip().lower() in ("true", "1", "yes")
    if in_ci and not (env.get(TRUSTED_ORIGINS_ENV) or "").strip():
        return CI_WARNING
    return None
