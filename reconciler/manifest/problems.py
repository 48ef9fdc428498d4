"""One problem found in the manifests, with where it is and what it concerns."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True, slots=True, order=True)
class Problem:
    file: str
    line: int
    column: int
    resource: str  # `Kind "name"`, or "" when the problem is not about one document
    field: str  # dotted path inside the document, or ""
    message: str
    # A warning is what validate cannot know to be wrong offline (a role that only the
    # live portal may hold, a name that only looks like another): shown, never failing.
    warning: bool = False
    # How many problems this one stands for: more than one for "… and 199,990 more".
    stands_for: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.without_place()}"

    def without_place(self) -> str:
        parts = ("warning" if self.warning else "", self.resource, self.field, self.message)
        return ": ".join(part for part in parts if part)

    def as_warning(self) -> Problem:
        return replace(self, warning=True)

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


def counted(first_left_out: Problem, left_out: int, sort: str) -> Problem:
    """One problem standing for those left out, at the first of them: "… and 199,990 more
    unknown keys"."""
    message = f"… and {left_out:,} more {sort}"
    return replace(first_left_out, field="", message=message, stands_for=left_out)


def capped_per_document(problems: Iterable[Problem], limit: int) -> list[Problem]:
    """`problems` (sorted), each document's first `limit` and one counting the rest; a
    problem of no document is always kept."""
    kept: list[Problem] = []
    shown: dict[str, int] = {}
    left_out: dict[str, tuple[Problem, int]] = {}  # the first left out, and how many
    for problem in problems:
        key = problem.resource
        if not key or shown.get(key, 0) < limit:
            shown[key] = shown.get(key, 0) + 1
            kept.append(problem)
        else:
            first, count = left_out.get(key, (problem, 0))
            left_out[key] = (first, count + problem.stands_for)
    kept += [
        counted(first, count, "warnings" if first.warning else "problems")
        for first, count in left_out.values()
    ]
    return sorted(kept)


def total(problems: Iterable[Problem]) -> int:
    """How many problems `problems` stand for, those only counted included."""
    return sum(problem.stands_for for problem in problems)
