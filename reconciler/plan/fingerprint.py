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

from reconciler.state import LiveState
from reconciler.versions import Platform, Release


def canonical_json(value: Any) -> Any:
    """Plain JSON values: dataclasses as dicts, sets sorted, mapping keys as strings."""
    if isinstance(value, Platform | Release):
        return str(value)
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: canonical_json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Mapping):
        return {str(k): canonical_json(v) for k, v in value.items()}
    if isinstance(value, frozenset | set):
        return sorted(canonical_json(v) for v in value)
    if isinstance(value, list | tuple):
        return [canonical_json(v) for v in value]
    return value


def _digest(value: Any) -> str:
    text = json.dumps(canonical_json(value), sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def live_fingerprint(live: LiveState) -> str:
    return _digest(live)


def live_resources(live: LiveState) -> Iterator[tuple[str, Any]]:
    """Every live resource by its plan address (design §3)."""
    yield "Portal", live.portal
    for name, role in live.roles.items():
        yield f"Role/{name}", role
    for user, member in live.members.items():
        yield f"Member/{user}", (member, live.memberDetails.get(user))
    for cid, collab in live.collaborations.items():
        yield f"Collaboration/{cid}", (collab.name, collab.hostPortalId)
        for wid, workspace in collab.workspaces.items():
            yield f"Workspace/{cid}/{wid}", workspace
        for iid, status in collab.invitations.items():
            yield f"Invitation/{cid}/{iid}", status
    yield "WebhookSettings", live.webhookSettings
    for wid, hook in live.webhooks.items():
        yield f"OrganizationWebhook/{wid}", hook
    for user, tasks in live.tasks.items():
        for task in tasks:
            for run in task.runs:
                yield f"TaskRun/{user}/{task.id}/{run.runId}", run


# Resources that exist once per portal are always digested by themselves.
SINGLETONS = ("Portal", "WebhookSettings")


def _kind(address: str) -> str:
    return address.split("/", 1)[0] + "/*"


def live_digests(live: LiveState, touched: Iterable[str]) -> dict[str, str]:
    """Digest per touched address and per singleton ("" for an address not live),
    and one per kind ("Role/*") over all the untouched rest."""
    wanted = {*touched, *SINGLETONS}
    found: dict[str, str] = {}
    rest: dict[str, list[tuple[str, Any]]] = {}
    for address, record in live_resources(live):
        if address in wanted:
            found[address] = _digest(record)
        else:
            rest.setdefault(_kind(address), []).append((address, record))
    digests = {address: found.get(address, "") for address in wanted}
    for kind, records in rest.items():
        digests[kind] = _digest(sorted(records, key=lambda r: r[0]))
    return dict(sorted(digests.items()))


def changed_addresses(saved: Mapping[str, str], live: LiveState) -> list[str]:
    """What changed since the plan's `liveDigests` were taken: resource addresses, or a
    kind ("Member/*") when the change is in a resource the plan does not touch."""
    touched = [address for address in saved if not address.endswith("/*")]
    now = live_digests(live, touched)
    return sorted(a for a in set(saved) | set(now) if saved.get(a) != now.get(a))
