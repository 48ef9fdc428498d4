"""Names that look like other names: letters of several scripts (a Cyrillic `А` in
`Аnalyst`), invisible characters (a zero-width space), or a spelling Unicode normalizes
differently (`é` as `e` and a combining accent). The portal stores each as written, so a
role or member that reads as `Analyst` in every review is another one; validate says so.

They are warnings: the portal accepts them (orgctl_service refuses only control and
bidirectional formatting characters, which `text_rules` makes errors), and a name may mix
scripts on purpose. Scripts are told apart by the Unicode character names; Han, kana,
Hangul and Bopomofo with Latin are one writing system (as Unicode TS #39's "highly
restrictive" level has it), so `営業 Team` is no mix.
"""

from __future__ import annotations

import re
import unicodedata

# Invisible: format characters (zero-width space, joiners, word joiner, BOM, soft hyphen,
# left-to-right marks) and every space but the ordinary one (no-break, em, ideographic).
_INVISIBLE = re.compile("[\u00a0\u00ad\u1680\u180e\u2000-\u200f\u202f\u205f-\u2064\u3000\ufeff]")
_EAST_ASIAN = frozenset({"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO", "IDEOGRAPHIC"})
_EAST_ASIAN_SCRIPT = "East Asian"


def lookalike_problem(what: str, value: str) -> str | None:
    """Why `value` may read as another name, or None (every ASCII name is fine)."""
    if value.isascii():
        return None
    invisible = _INVISIBLE.search(value)
    if invisible:
        return f"{what} {value!r} holds an invisible character: {_shown(invisible.group())}" + (
            f" at position {invisible.start() + 1}; it reads as another name"
        )
    if not unicodedata.is_normalized("NFC", value):
        normal = unicodedata.normalize("NFC", value)
        return (
            f"{what} {value!r} is not in Unicode normal form NFC ({normal!r} looks the same"
            " but is another name); write it as NFC"
        )
    scripts = _scripts(value)
    if len(scripts) > 1:
        main, *others = sorted(scripts, key=lambda script: -len(scripts[script]))
        odd = min(others, key=lambda script: scripts[script][0])  # the first in the name
        position = scripts[odd][0]
        return (
            f"{what} {value!r} mixes {main} and {', '.join(others)} letters"
            f" ({_shown(value[position])} at position {position + 1}): it looks like a"
            f" name written in {main} alone"
        )
    return None


def _scripts(value: str) -> dict[str, list[int]]:
    """The positions of the letters of `value`, by script."""
    found: dict[str, list[int]] = {}
    for position, character in enumerate(value):
        script = _script(character)
        if script:
            found.setdefault(script, []).append(position)
    if _EAST_ASIAN_SCRIPT in found:
        found.pop("Latin", None)  # Latin beside East Asian scripts is ordinary
    return found


def _script(character: str) -> str | None:
    if not character.isalpha():
        return None  # digits, punctuation and marks belong to every script
    name = unicodedata.name(character, "")
    word = name.split(" ", 1)[0].split("-", 1)[0]
    if word in _EAST_ASIAN:
        return _EAST_ASIAN_SCRIPT
    if word == "MODIFIER":
        return None
    return word.capitalize() if word else None


def _shown(character: str) -> str:
    name = unicodedata.name(character, "unnamed")
    return f"U+{ord(character):04X} {name}"
