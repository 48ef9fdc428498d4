"""A manifest document as read, before the models check it: plain values, where each key
was written, and what it owes to other files (an include, overlays).

Bases and overlays are merged at this stage (`overlay.py`), since an overlay's
`{add, remove}` is no value the models accept; every key keeps the file and line it came
from, so a problem found later names the right file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reconciler.manifest import yamltree

KeyPath = tuple[str | int, ...]


@dataclass(slots=True)
class Raw:
    file: str
    tree: yamltree.Tree
    # What a problem of this document adds after its message: "included by F:L",
    # "base F:L ...; patched by F:L".
    notes: list[str] = field(default_factory=list)

    @property
    def value(self) -> Any:
        return self.tree.value

    @property
    def positions(self) -> yamltree.Positions:
        return self.tree.positions

    @property
    def line(self) -> int:
        return self.tree.positions.line

    @property
    def kind(self) -> str | None:
        kind = self.value.get("kind") if isinstance(self.value, dict) else None
        return kind if isinstance(kind, str) else None

    @property
    def metadata(self) -> Any:
        return self.value.get("metadata") if isinstance(self.value, dict) else None

    @property
    def name(self) -> str | None:
        name = self.metadata.get("name") if isinstance(self.metadata, dict) else None
        return name if isinstance(name, str) else None

    @property
    def identity(self) -> tuple[str, str] | None:
        """(kind, metadata.name): what an overlay names to patch a base's document."""
        kind, name = self.kind, self.name
        return (kind, name) if kind is not None and name is not None else None

    @property
    def label(self) -> str:
        """`Kind "name"` (or what is known of it), as problems name a resource."""
        kind = self.value.get("kind") if isinstance(self.value, dict) else None
        if kind is None:
            return ""
        metadata = self.metadata
        name = metadata.get("name") if isinstance(metadata, dict) else None
        return f'{kind} "{name}"' if name is not None else str(kind)

    @property
    def origin(self) -> str:
        return f" ({'; '.join(self.notes)})" if self.notes else ""

    def locate(self, path: KeyPath) -> tuple[str, int, int]:
        return locate(self.positions, path, self.file, (self.line, 1))


def locate(
    positions: yamltree.Positions, path: KeyPath, file: str, fallback: tuple[int, int]
) -> tuple[str, int, int]:
    """File, line and column (1-based) of the deepest key or item of `path` that exists."""
    line, column = fallback
    node = positions
    at_file = positions.file or file
    for part in path:
        child = node.children.get(part)
        if child is None:
            break
        line, column = child.line, child.column
        at_file = child.file or file  # untagged: the document's own (overlay.py tags)
        node = child
    return at_file, line, column


def tagged(positions: yamltree.Positions, file: str) -> yamltree.Positions:
    """A copy of `positions` whose every node says it was written in `file`."""
    children = {key: tagged(child, file) for key, child in positions.children.items()}
    return yamltree.Positions(positions.line, positions.column, children, file)
