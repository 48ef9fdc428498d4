"""Text from manifests and portals, made safe to show to a person.

Role names, descriptions, messages and ids are untrusted: a newline would break out of a
Markdown code block in a pull-request comment, an escape sequence would drive the
reader's terminal, and a bidirectional override would make a line read other than it is.
Each such character is shown as an escape (`\\n`, `\\x1b`, `\\u202e`); everything else,
accents and scripts included, is shown as it is. JSON output stays exact: it escapes by
its own rules.
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, and the bidirectional controls (embeddings, overrides,
# isolates and marks) that reorder what follows them.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def safe(text: str) -> str:
    """`text` with every unsafe character as a visible escape."""
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def longest_backtick_run(text: str) -> int:
    """The longest run of backticks in `text`: a Markdown fence must be longer."""
    runs = re.findall(r"`+", text)
    return max((len(run) for run in runs), default=0)


def inline_code(text: str) -> str:
    """`text` as Markdown inline code that its own backticks cannot end."""
    ticks = "`" * (longest_backtick_run(text) + 1)
    return f"{ticks} {text} {ticks}" if ticks != "`" else f"`{text}`"


def table_cell(text: str) -> str:
    """`text` as inline code in a Markdown table cell: a `|` would end the cell even
    inside code, so it is escaped (GitHub shows it as `|` in the code)."""
    return inline_code(safe(text)).replace("|", "\\|")


_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def markdown_text(text: str) -> str:
    """`text` as Markdown prose that is shown as written: every ASCII punctuation
    character backslash-escaped, so no `<script>`, link, emphasis or `|` takes effect."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", safe(text))


__all__ = ["inline_code", "longest_backtick_run", "markdown_text", "safe", "table_cell"]
