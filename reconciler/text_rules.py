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

_BIDI = "\u202a-\u202e\u2066-\u2069"
# The characters refused in a name, as one pattern: every username of a 100,000-member
# manifest and every id of a listing of 100,000 members is checked, one search each, not
# a loop over characters in Python.
REFUSED_IN_NAMES = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
# Tab, line feed and carriage return are allowed where text may span lines.
_REFUSED_MULTILINE = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}]")


def text_problem(field: str, value: str, multiline: bool = False) -> str | None:
    """Why `value` may not be stored as `field`, or None."""
    found = (_REFUSED_MULTILINE if multiline else REFUSED_IN_NAMES).search(value)
    if found is None:
        return None
    return (
        f"'{field}' must not contain control or bidirectional formatting characters;"
        f" found U+{ord(found.group()):04X} at position {found.start() + 1}"
    )
