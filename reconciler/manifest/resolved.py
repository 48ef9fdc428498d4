"""A portal's manifest set after includes, overlays and limits, as YAML (`orgctl render`).

The text is itself a manifest set that validates and plans like the folder it came from:
the Portal's `spec.include` and each document's `metadata.portals`, `releases` and
`overlay` are left out, since what they said is already applied. With origins, every key
and list item ends with a comment naming the file and line that wrote it, so a reviewer
sees what an overlay changed.

The writer is our own, line by line, because each line needs its own comment; strings
are written plain only when no YAML reader could take them for anything else.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date, datetime
from typing import Any

from reconciler.manifest.raw import KeyPath, Raw
from reconciler.manifest.writer import needs_quotes
from reconciler.manifest.yamltree import Positions

# Resolved away: the folders the Portal includes, and whom a document is for.
_LEFT_OUT: frozenset[KeyPath] = frozenset(
    {
        ("spec", "include"),
        ("metadata", "portals"),
        ("metadata", "releases"),
        ("metadata", "overlay"),
    }
)
_PLAIN = re.compile(r"^[A-Za-z_/][\w./@():-]*(?: [\w./@():-]+)*$")


def render(documents: list[Raw], header: list[str], origins: bool) -> str:
    """The documents as one YAML stream, Portal first, `header` as leading comments."""
    ordered = sorted(documents, key=lambda d: d.kind != "Portal")
    lines = [f"# {line}" if line else "#" for line in header]
    for index, document in enumerate(ordered):
        if index or lines:
            lines.append("---")
        writer = _Writer(document, origins)
        writer.mapping(document.value, document.positions, (), 0)
        lines += writer.lines
    return "\n".join(lines) + "\n"


class _Writer:
    def __init__(self, document: Raw, origins: bool) -> None:
        self.document = document
        self.origins = origins
        self.lines: list[str] = []

    def origin(self, node: Positions | None) -> str:
        if not self.origins or node is None:
            return ""
        return f"  # {node.file or self.document.file}:{node.line}"

    def mapping(self, value: dict[Any, Any], at: Positions, path: KeyPath, indent: int) -> None:
        for key, item in value.items():
            if (*path, key) in _LEFT_OUT:
                continue
            node = at.children.get(key)
            head = f"{' ' * indent}{scalar(key)}:"
            self.entry(head, item, node, (*path, key), indent)

    def sequence(self, value: list[Any], at: Positions, path: KeyPath, indent: int) -> None:
        for index, item in enumerate(value):
            node = at.children.get(index)
            self.entry(f"{' ' * indent}-", item, node, (*path, index), indent)

    def entry(
        self, head: str, item: Any, node: Positions | None, path: KeyPath, indent: int
    ) -> None:
        below = node or Positions(0, 0)
        if isinstance(item, dict) and item:
            self.lines.append(head + self.origin(node))
            self.mapping(item, below, path, indent + 2)
        elif isinstance(item, list) and item:
            self.lines.append(head + self.origin(node))
            self.sequence(item, below, path, indent + 2)
        else:
            self.lines.append(f"{head} {scalar(item)}{self.origin(node)}")


def scalar(value: Any) -> str:
    """One YAML scalar (or an empty collection) that reads back as `value`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    text = str(value)
    if _PLAIN.match(text) and not needs_quotes(text) and ": " not in text and text[-1] != ":":
        return text
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted one
