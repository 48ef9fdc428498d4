"""Digests of the live state a plan was computed on, so `apply --plan` can refuse a stale
plan and say which resources changed since.

`live_fingerprint` covers everything. `live_digests` gives one digest per resource the
plan touches, plus one per kind of resource ("Role/*") for all the rest, so the plan file
stays small on a large portal while a change anywhere can still be named.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import fields, is_dataclass
from typing import Any

from reconciler.errors import UserError
from reconciler.kind import registered, singletons
from reconciler.plan.model import Plan
from reconciler.state import LiveState
from reconciler.versions import Platform, Release


def _encode(value: Any) -> Any:
    """JSON for what `json` does not know: records as dicts, sets sorted, releases as text.

    Used as the encoder's `default`, so the encoder itself (in C) walks the rest.
    """
    if isinstance(value, Platform | Release):
        return str(value)
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"cannot fingerprint {type(value).__name__}")


def canonical_text(value: Any) -> str:
    """Canonical JSON: sorted keys, sets sorted, no whitespace."""
    return _CANONICAL.encode(value)


# Made once: json.dumps with options makes an encoder per call, and a plan of 100,000
# members encodes each live record.
_CANONICAL = json.JSONEncoder(default=_encode, sort_keys=True, separators=(",", ":"))


SIGNED_IN = ("username", "caller")
# What the license allows is no state a plan changes, and only an administrator may read it
# (docs/rules.md §A): digested, a reviewer's saved plan (quotas not checked) would never
# match the administrator's re-read. The portal checks each level change against it.
LICENSED = ("levelQuotas", "levelQuotasUnread")


def live_fingerprint(live: LiveState) -> str:
    """One digest of the whole live state."""
    return live_summary(live, ())[0]


def live_resources(live: LiveState) -> Iterator[tuple[str, Any]]:
    """Every live resource by its plan address (README: plan JSON)."""
    # Who is signed in (`username`, `caller`) is left out: a plan made by one account is
    # applied by another, and what either may do follows from members and roles, which
    # are digested on their own.
    portal = live.portal
    yield (
        "Portal",
        {
            f.name: getattr(portal, f.name)
            for f in fields(portal)
            if f.name not in SIGNED_IN + LICENSED
        },
    )
    for kind in registered():
        yield from kind.live(live)


def _singletons() -> tuple[str, ...]:
    """Resources that exist once per portal, always digested by themselves."""
    return ("Portal", *singletons())


def _kind(address: str) -> str:
    return address.split("/", 1)[0] + "/*"


def _hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def live_summary(live: LiveState, touched: Iterable[str]) -> tuple[str, dict[str, str]]:
    """(fingerprint of everything, digests): one pass, each resource encoded once.

    The fingerprint hashes every resource's canonical JSON in address order. The digests
    hold one per touched address and per singleton ("" for an address not live), and one
    per kind ("Role/*") over all the untouched rest.
    """
    wanted = {*touched, *_singletons()}
    encoded = sorted((address, canonical_text(record)) for address, record in live_resources(live))
    whole = hashlib.sha256()
    found: dict[str, str] = {}
    kinds: dict[str, Any] = {}
    for address, text in encoded:
        line = f"{address}\n{text}\n".encode()
        whole.update(line)
        if address in wanted:
            found[address] = _hash(text)
        else:
            kinds.setdefault(_kind(address), hashlib.sha256()).update(line)
    digests = {address: found.get(address, "") for address in wanted}
    digests.update({kind: "sha256:" + h.hexdigest() for kind, h in kinds.items()})
    return "sha256:" + whole.hexdigest(), dict(sorted(digests.items()))


def live_digests(live: LiveState, touched: Iterable[str]) -> dict[str, str]:
    return live_summary(live, touched)[1]


def changed_addresses(saved: Mapping[str, str], live: LiveState) -> list[str]:
    """What changed since the plan's `liveDigests` were taken: resource addresses, or a
    kind ("Member/*") when the change is in a resource the plan does not touch."""
    touched = [address for address in saved if not address.endswith("/*")]
    now = live_digests(live, touched)
    return sorted(a for a in set(saved) | set(now) if saved.get(a) != now.get(a))


class StalePlan(UserError):
    """The portal changed since the saved plan was computed."""


def check_fresh(plan: Plan, live: LiveState) -> None:
    """Refuse a saved plan computed on a live state other than `live`, naming what changed."""
    if plan.liveFingerprint == live_fingerprint(live):
        return
    changed = changed_addresses(plan.liveDigests, live) or [
        # Every digest matches the live state: only the file's fingerprint disagrees.
        "none by its digest, yet the plan file's liveFingerprint differs (was it edited?)"
        if plan.liveDigests
        else "(unknown: the plan file has no digests)"
    ]
    raise StalePlan(
        "stale plan: the portal changed since the plan was made; changed: "
        + ", ".join(changed)
        + ". Run orgctl plan again."
    )
