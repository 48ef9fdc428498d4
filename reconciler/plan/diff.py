"""Compare one resource's managed fields; the only module that knows deepdiff.

A record's fields are first reduced to the managed ones (desired `None` = unmanaged) and
put in canonical form (`normalize`), so any difference left is a real one. Flat fields
compare with `==` (a plan of 10,000 members must take well under a second, and deepdiff
costs a fraction of a millisecond per call); a nested record (a group link, a schedule)
that differs is explained by deepdiff, down to the sub-fields that differ. Either way the
result is our own `Change`, holding only the fields that differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.plan.model import Action, Change
from reconciler.plan.normalize import canonical_fields, fields_at


def changed_fields(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Names of the `after` fields whose canonical values differ, sorted."""
    return sorted(name for name, value in after.items() if before.get(name) != value)


def changed_subfields(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Top-level keys under which two nested records differ, as deepdiff reports them."""
    # Imported when first needed: deepdiff imports pandas and numpy when they are installed
    # (95 MB and a quarter second for every plan, even one with nothing nested to explain).
    from deepdiff import DeepDiff

    report = DeepDiff(dict(before), dict(after), view="tree")
    names: set[str] = set()
    for level in (leaf for leaves in report.values() for leaf in leaves):
        path = level.path(output_format="list")
        if path:
            names.add(str(path[0]))
    return sorted(names)


def _narrowed(have: Any, want: Any) -> tuple[Any, Any]:
    """For two nested records, only the sub-fields that differ; other values as they are."""
    if isinstance(have, Mapping) and isinstance(want, Mapping):
        names = changed_subfields(have, want)
        return {n: have.get(n) for n in names}, {n: want.get(n) for n in names}
    return have, want


def diff_record(address: str, live: Mapping[str, Any], desired: Mapping[str, Any]) -> Change | None:
    """An update `Change` for the managed (`desired`) fields that differ, or None.

    `live` may hold more fields than `desired`; only the desired ones are compared.
    """
    fields = fields_at(address)
    want = canonical_fields(fields, {k: v for k, v in desired.items() if v is not None})
    have = canonical_fields(fields, {k: live.get(k) for k in want})
    names = changed_fields(have, want)
    if not names:
        return None
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for name in names:
        before[name], after[name] = _narrowed(have[name], want[name])
    return Change(address, Action.UPDATE, before, after)


def created(address: str, desired: Mapping[str, Any]) -> Change:
    after = canonical_fields(
        fields_at(address), {k: v for k, v in desired.items() if v is not None}
    )
    return Change(address, Action.CREATE, None, after)


def deleted(address: str, live: Mapping[str, Any]) -> Change:
    before = canonical_fields(fields_at(address), {k: v for k, v in live.items() if v is not None})
    return Change(address, Action.DELETE, before, None)
