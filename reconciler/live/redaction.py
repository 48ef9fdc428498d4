"""The binary-to-text spellings of a secret that an answer may echo: a gateway or proxy
that logs or reflects the request may put it, or the whole body around it, in base64,
base64url or hex.

Inside a longer base64 text the secret starts at byte offset 0, 1 or 2 of a 3-byte group,
and each offset spells it differently; only the characters that depend on the secret alone
(its interior) are the same wherever it stands. Those three interiors, in both base64
alphabets, are what is looked for; the at most two characters at each end that mix the
secret's first or last bits with its neighbours' stay (they cannot give a secret away).

Encoders wrap long base64 (MIME at 76 characters, PEM at 64, others anywhere, some
indenting the next line), so a spelling is matched with a line break allowed between any
two of its characters.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable

# Shorter interiors would blot out ordinary words of a message; a secret that short has
# little to hide in the first place.
MIN_INTERIOR = 4


def encoded_forms(spelling: str) -> set[str]:
    """Every base64 (3 alignments), base64url and hex (both cases) rendering."""
    data = spelling.encode("utf-8")
    forms = {data.hex(), data.hex().upper()}
    for interior in _base64_interiors(data):
        forms.add(interior)
        forms.add(interior.translate(_URL_SAFE))
    return {form for form in forms if len(form) >= MIN_INTERIOR}


_URL_SAFE = str.maketrans("+/", "-_")


def _base64_interiors(data: bytes) -> list[str]:
    """For offsets 0-2 in a group: the characters encoding bits of `data` only."""
    interiors = []
    for offset in range(3):
        text = base64.b64encode(b"\0" * offset + data).decode("ascii")
        first_bit, end_bit = 8 * offset, 8 * (offset + len(data))
        start = -(-first_bit // 6)  # the first character wholly inside the secret
        end = end_bit // 6  # one past the last such character
        interiors.append(text[start:end])
    return interiors


# A line break (LF, CRLF or CR) and the indentation an encoder may put after it.
_WRAP = r"(?:\r\n?|\n)[ \t]*"


def spelled(spellings: Iterable[str]) -> re.Pattern[str]:
    """One pattern finding each spelling, wrapped or not; the longest is tried first, so no
    part of one is left beside the mark."""
    ordered = sorted(set(spellings), key=len, reverse=True)
    between = f"(?:{_WRAP})?"
    return re.compile("|".join(between.join(map(re.escape, s)) for s in ordered if s))
