"""Compare one resource's managed fields; the only module that knows deepdiff.

A record's fields are first reduced to the managed ones (desired `None` = unmanaged) and
put in canonical form (`normalize`), so what deepdiff reports is a real difference.
Its report becomes our own `Change`, holding only the fields that differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deepdiff import DeepDiff

from reconciler.plan.model import Action, Change
from reconciler.plan.normalize import canonical_fields


def changed_fields(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Top-level names of the fields whose canonical values differ, sorted."""
    if before == after:  # the common case; deepdiff is only asked to explain a difference
        return []
    report = DeepDiff(dict(before), dict(after), ignore_order=True, view="tree")
    names: set[str] = set()
    for level in (leaf for leaves in report.values() for leaf in leaves):
        path = level.path(output_format="list")
        if path:
            names.add(str(path[0]))
    return sorted(names)


def diff_record(address: str, live: Mapping[str, Any], desired: Mapping[str, Any]) -> Change | None:
    """An update `Change` for the managed (`desired`) fields that differ, or None.

    `live` may hold more fields than `desired`; only the desired ones are compared.
    """
    want = canonical_fields({k: v for k, v in desired.items() if v is not None})
    have = canonical_fields({k: live.get(k) for k in want})
    names = changed_fields(have, want)
    if not names:
        return None
    return Change(
        address,
        Action.UPDATE,
        {name: have[name] for name in names},
        {name: want[name] for name in names},
    )


def created(address: str, desired: Mapping[str, Any]) -> Change:
    after = canonical_fields({k: v for k, v in desired.items() if v is not None})
    return Change(address, Action.CREATE, None, after)


def deleted(address: str, live: Mapping[str, Any]) -> Change:
    before = canonical_fields({k: v for k, v in live.items() if v is not None})
    return Change(address, Action.DELETE, before, None)
