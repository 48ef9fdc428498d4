"""An identity a listing gives twice: which record a write would reach is unknown.

A portal lists each role, member, collaboration, workspace, webhook and task once. When
two entries of one listing carry the same id (a broken index, a hostile proxy), a write
meant for one would reach the other — a role listed under another's id would have its
update and privileges sent to that role, which a later call then deletes. So every entry
of such a group is left unread, each naming the others, and nothing is planned for them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


def without_repeats(
    found: list[T],
    field: str,
    key: Callable[[T], str],
    address: Callable[[T], str],
    unreadable: dict[str, str],
) -> list[T]:
    """`found` less the entries whose `key` (their `field`) another entry also has; each
    of those is kept in `unreadable` under its address, with a message naming all."""
    if len(set(map(key, found))) == len(found):
        return found  # the usual case, at the cost of one pass
    counts = Counter(map(key, found))
    groups: dict[str, list[T]] = {}
    for entry in found:
        if counts[key(entry)] > 1:
            groups.setdefault(key(entry), []).append(entry)
    for value, group in groups.items():
        named = _listed(address(entry) for entry in group)
        for entry in group:
            unreadable[address(entry)] = (
                f"the portal listed {named} with the same {field} {value!r}; a write could"
                " reach the wrong one, so none of them is read, planned or written"
            )
    return [entry for entry in found if counts[key(entry)] == 1]


def _listed(addresses: Iterable[str]) -> str:
    names = list(addresses)
    if len(set(names)) == 1:
        return f"{names[0]} {len(names)} times"
    return ", ".join(names[:-1]) + " and " + names[-1]
