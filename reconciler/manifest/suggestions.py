"""The "did you mean" of a misspelt role, field, kind or command: the closest of the names
a word could have meant, case ignored (`feld analyst` finds `Field Analyst`, `plna` finds
`plan`). One implementation serves every caller: `reconciler.names`, whose rules also
decide which spellings are one role."""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.names import ANY_CASE
from reconciler.names import did_you_mean as _did_you_mean


def closest(word: str, names: Iterable[str]) -> str | None:
    """The name `word` most likely meant: the same one in another case first, else the most
    similar, else None."""
    return ANY_CASE.closest(word, names)


def did_you_mean(word: str, names: Iterable[str]) -> str:
    """` (did you mean 'Field Analyst'?)`, or "" when no name is close."""
    return _did_you_mean(word, names, ANY_CASE)
