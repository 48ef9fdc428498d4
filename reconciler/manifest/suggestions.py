"""The one "did you mean" of orgctl: the closest of the names a word could have meant, for
a misspelt role, field, kind or command."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

# difflib's ratio at or above which a name is offered (its own default): `org_publishr`
# finds `org_publisher`, `plna` finds `plan`, and unrelated names stay silent.
CUTOFF = 0.6


def closest(word: str, names: Iterable[str]) -> str | None:
    """The name `word` most likely meant: the same one in another case first, else the most
    similar (case ignored, so `feld analyst` still finds `Field Analyst`), else None."""
    by_fold: dict[str, str] = {}
    for name in names:
        by_fold.setdefault(name.casefold(), name)
    folded = word.casefold()
    if folded in by_fold:
        return by_fold[folded]
    found = difflib.get_close_matches(folded, list(by_fold), n=1, cutoff=CUTOFF)
    return by_fold[found[0]] if found else None


def did_you_mean(word: str, names: Iterable[str]) -> str:
    """` (did you mean 'Field Analyst'?)`, or "" when no name is close."""
    found = closest(word, names)
    return f" (did you mean {found!r}?)" if found is not None else ""
