"""Free text a portal keeps and shows back (role, workspace and resource names,
descriptions, group ids): control characters and bidirectional overrides are refused, by
the reference service on a write and by `validate` in a manifest, by this one rule.

A NUL, an ESC sequence or a CR/LF in a name reaches every terminal, log line and
Markdown table that shows it; U+202E makes `gnp.exe` read as `exe.png`. Refused: every
C0 control (U+0000-U+001F), DEL, every C1 control (U+0080-U+009F), the bidi embeddings
and overrides U+202A-U+202E and the isolates U+2066-U+2069. Descriptions may hold line
breaks and tabs (multi-line text is ordinary there); names may not.
"""

from __future__ import annotations

import re

_BIDI = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
_LINE_BREAKS = frozenset("\t\n\r")


def text_problem(field: str, value: str, multiline: bool = False) -> str | None:
    """Why `value` may not be stored as `field`, or None."""
    for index, char in enumerate(value):
        if _refused(char, multiline):
            return (
                f"'{field}' must not contain control or bidirectional formatting characters;"
                f" found U+{ord(char):04X} at position {index + 1}"
            )
    return None


def _refused(char: str, multiline: bool) -> bool:
    point = ord(char)
    if point < 0x20:
        return not (multiline and char in _LINE_BREAKS)
    return 0x7F <= point <= 0x9F or point in _BIDI


# The characters `text_problem` refuses in a name, as one pattern: a check run on every
# id of a listing of 100,000 members must not loop over characters in Python.
REFUSED_IN_NAMES = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
