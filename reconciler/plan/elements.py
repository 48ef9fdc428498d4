"""Element-level differences of set-like fields (privileges, group lists, absent lists):
what an update adds and removes, and how much it leaves alone. Text, Markdown and the
plan JSON all show these, so a reviewer sees the one privilege removed from a role of
66, not two lists of 66 to compare by eye."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reconciler.plan.model import Action, Change

ADMIN_PREFIX = "portal:admin:"  # privileges that grant administrative power


@dataclass(frozen=True, slots=True)
class Elements:
    added: tuple[Any, ...]
    removed: tuple[Any, ...]
    unchanged: int


def elements(before: Any, after: Any) -> Elements | None:
    """The set difference of two lists of plain values, or None when either side is not
    such a list or only the order differs (then the whole value is shown)."""
    if not (_plain_list(before) and _plain_list(after)):
        return None
    old, new = set(before), set(after)
    added = tuple(v for v in _unique(after) if v not in old)
    removed = tuple(v for v in _unique(before) if v not in new)
    if not added and not removed:
        return None
    return Elements(added, removed, len(old & new))


def field_elements(change: Change) -> dict[str, Elements]:
    """The set-like fields an update changes, by name."""
    if change.action is not Action.UPDATE or not change.before or not change.after:
        return {}
    found = {}
    for name in sorted(change.before.keys() & change.after.keys()):
        diff = elements(change.before[name], change.after[name])
        if diff is not None:
            found[name] = diff
    return found


def _field_elements(change: Change, name: str) -> Elements | None:
    """`field_elements(change).get(name)`, without diffing the other fields."""
    before, after = change.before, change.after
    if not before or not after or name not in before or name not in after:
        return None
    return elements(before[name], after[name])


def granted_privileges(change: Change) -> list[str]:
    """The privileges the change grants: a create's, an update's added ones."""
    return _privileges(change, gained=True)


def granted_admin(change: Change, found: Mapping[str, Elements] | None = None) -> list[str]:
    """The administrative privileges the change grants; `found`, the change's
    `field_elements` when the caller has them already (the plan JSON shows both)."""
    return [p for p in _privileges(change, gained=True, found=found) if p.startswith(ADMIN_PREFIX)]


def removed_privileges(change: Change) -> list[str]:
    """The privileges the change takes away: a delete's, an update's removed ones."""
    return _privileges(change, gained=False)


def _privileges(
    change: Change, *, gained: bool, found: Mapping[str, Elements] | None = None
) -> list[str]:
    """The privileges one side of the change holds and the other does not: `gained`, a
    create's and an update's added ones; otherwise a delete's and an update's removed."""
    whole, side = (Action.CREATE, change.after) if gained else (Action.DELETE, change.before)
    held: list[Any] = []
    if change.action is whole:
        held = (side or {}).get("privileges") or []
    elif change.action is Action.UPDATE:
        diff = _field_elements(change, "privileges") if found is None else found.get("privileges")
        held = list((diff.added if gained else diff.removed) if diff else ())
    return sorted(p for p in held if isinstance(p, str))


def _plain_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, _PLAIN) for v in value)


# A tuple, not a union: isinstance checks it faster, once per element of every list.
_PLAIN = (str, int, float, bool)


def _unique(values: list[Any]) -> list[Any]:
    distinct = set(values)
    if all(type(v) is str for v in distinct):
        return sorted(distinct)  # the order the key gives, without a key per element
    return sorted(distinct, key=lambda v: (str(type(v)), v))
