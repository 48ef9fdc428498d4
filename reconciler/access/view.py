"""A member's privileges as the formats show them, from the document: its role's
privileges (those the report's privilege filter keeps), each marked when the member's
level disables it. The document lists them once per role, not per member."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fnmatch import fnmatchcase
from typing import Any

Json = dict[str, Any]
Held = tuple[tuple[str, bool], ...]  # (privilege, disabled by level), sorted


def held_by(document: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], Held]:
    """What a member of `document` holds; worked out once per role and disabled list."""
    patterns = [p for p in document.get("privilegeFilter") or () if isinstance(p, str)]
    by_role: dict[str, tuple[str, ...]] = {}
    for role in document.get("roles") or ():
        if isinstance(role, Mapping) and isinstance(role.get("name"), str):
            names = [p for p in role.get("privileges") or () if isinstance(p, str)]
            kept = [p for p in names if not patterns or any(fnmatchcase(p, q) for q in patterns)]
            by_role[role["name"]] = tuple(sorted(kept))
    seen: dict[tuple[str, tuple[str, ...]], Held] = {}

    def held(member: Mapping[str, Any]) -> Held:
        role = member.get("role")
        if not isinstance(role, str) or role not in by_role:
            return ()
        off = member.get("disabledByLevel")
        key = (role, tuple(p for p in off if isinstance(p, str)) if isinstance(off, list) else ())
        if key not in seen:
            disabled = frozenset(key[1])
            seen[key] = tuple((p, p in disabled) for p in by_role[role])
        return seen[key]

    return held
