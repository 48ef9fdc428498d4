"""One problem found in the manifests, with where it is and what it concerns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True, order=True)
class Problem:
    file: str
    line: int
    column: int
    resource: str  # `Kind "name"`, or "" when the problem is not about one document
    field: str  # dotted path inside the document, or ""
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.without_place()}"

    def without_place(self) -> str:
        return ": ".join(part for part in (self.resource, self.field, self.message) if part)

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "resource": self.resource,
            "field": self.field,
            "message": self.message,
        }


def field_path(path: tuple[str | int, ...]) -> str:
    """`("spec", "privileges", 2)` as `spec.privileges[2]`."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text
