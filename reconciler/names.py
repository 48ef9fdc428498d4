"""The one identity rule for each kind's names: which spellings name the same resource.

Role names are one identity regardless of case, as the portal keeps them: createRole and a
role's update refuse a name that another role holds in any case (ROLE_1001, as the
reference service answers it, orgctl_service/roles.py), so `Alpha`, `alpha` and `ALPHA`
are one role. Every comparison of role names (validate's uniqueness, a role declared
absent, pruneRoles and keepRoles, previousNames, a member's role, adopt, export) goes
through `ROLE_NAMES`; a comparison that folds case by itself drifts from the others, which
is how a role declared absent in another case was once never deleted.

Usernames compare exactly (`USERNAMES`): the spec says nothing, the reference service
keeps them as given, and the vendor's clients treat them as case sensitive
(https://community.esri.com/t5/arcgis-api-for-python-questions/user-name-is-case-sensitive/m-p/823652).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


def _exact(name: str) -> str:
    return name


@dataclass(frozen=True, slots=True)
class NameRule:
    """`key` maps each spelling to its identity: two names with the same key are one."""

    what: str
    key: Callable[[str], str] = _exact

    def same(self, one: str, other: str) -> bool:
        return self.key(one) == self.key(other)

    def keys(self, names: Iterable[str]) -> set[str]:
        return {self.key(name) for name in names}

    def spelled(self, names: Iterable[str]) -> Spellings:
        """`names` indexed by identity, for many lookups in one collection (a portal's
        thousand roles against a thousand declared ones stay linear)."""
        by_key: dict[str, list[str]] = {}
        for name in names:
            by_key.setdefault(self.key(name), []).append(name)
        return Spellings(self, {key: tuple(sorted(found)) for key, found in by_key.items()})

    def spellings(self, name: str, names: Iterable[str]) -> tuple[str, ...]:
        """Every spelling of `name` among `names`, sorted."""
        return self.spelled(names).of(name)

    def resolve(self, name: str, names: Iterable[str]) -> str | None:
        """The one spelling of `name` among `names` (see `Spellings.resolve`)."""
        return self.spelled(names).resolve(name)

    def lookup(self, name: str, mapping: Mapping[str, T]) -> T | None:
        """The entry of `mapping` named `name` under this rule (see `Spellings.resolve`)."""
        if name in mapping:
            return mapping[name]
        found = self.resolve(name, mapping)
        return None if found is None else mapping[found]

    def closest(self, name: str, names: Iterable[str]) -> str | None:
        """What `name` most likely meant among `names`, for a did-you-mean: its own
        spelling under this rule first, else the nearest by edit similarity."""
        candidates = sorted(set(names))
        same = self.resolve(name, candidates)
        if same is not None:
            return same
        by_key = {self.key(candidate): candidate for candidate in candidates}
        near = difflib.get_close_matches(self.key(name), list(by_key), n=1, cutoff=0.6)
        return by_key[near[0]] if near else None


@dataclass(frozen=True, slots=True)
class Spellings:
    """Names by their identity under `rule`."""

    rule: NameRule
    by_key: Mapping[str, tuple[str, ...]]

    def of(self, name: str) -> tuple[str, ...]:
        """Every spelling of `name`, sorted."""
        return self.by_key.get(self.rule.key(name), ())

    def resolve(self, name: str) -> str | None:
        """The one spelling of `name`: itself when present, else its only other spelling;
        None when there is none, or several and none exact (the caller decides what such
        an ambiguity means)."""
        found = self.of(name)
        if name in found:
            return name
        return found[0] if len(found) == 1 else None


ROLE_NAMES = NameRule("role name", str.casefold)
USERNAMES = NameRule("username")
# Ids (collaborations, workspaces, webhooks) are the portal's own strings, compared exactly.
IDS = NameRule("id")
# Names of documents of any kind, for a did-you-mean only: a wrong case is the likeliest slip.
ANY_CASE = NameRule("name", str.casefold)


def did_you_mean(name: str, names: Iterable[str], rule: NameRule) -> str:
    """` (did you mean 'X'?)` naming the closest of `names`, or nothing."""
    close = rule.closest(name, names)
    return f" (did you mean {close!r}?)" if close is not None else ""
