"""The folders a Portal includes (`spec.include`), checked before anything is read.

Each entry is a path relative to the folder of the file that holds the Portal document
(as kustomize resolves a kustomization's resources). An entry is refused, naming its
file and line, when it:
- is absolute, or leads outside the repository: the nearest folder above the Portal's
  file that holds `.git`, or, outside any Git repository, the working directory. A pull
  request must not make orgctl read `/etc` or a sibling checkout;
- names nothing, or something that cannot be read;
- is the portal folder, lies inside it (those documents are read already), or holds it:
  the portal would include itself, its own Portal and overlays again (an include cycle);
- is included twice, or lies inside (or holds) another entry.
Links are resolved first, so a link cannot smuggle a folder past these rules.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from reconciler.manifest.problems import Problem, field_path


@dataclass(frozen=True, slots=True)
class Include:
    folder: Path  # as written, joined to the Portal file's folder
    real: Path  # links resolved
    file: str  # the Portal's file
    line: int  # the line of this entry

    @property
    def site(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class Entry:
    """One `spec.include` entry as written: its text and where."""

    text: str
    index: int
    line: int
    column: int


def resolve(
    entries: list[Entry], portal_file: str, portal_folder: Path, resource: str
) -> tuple[list[Include], list[Problem]]:
    """The includes to read, and a problem for each entry refused."""
    base = Path(portal_file).parent
    boundary = repository_root(base)
    own = _real(portal_folder)
    found: list[Include] = []
    problems: list[Problem] = []

    def refuse(entry: Entry, message: str) -> None:
        where = field_path(("spec", "include", entry.index))
        problems.append(Problem(portal_file, entry.line, entry.column, resource, where, message))

    for entry in entries:
        written = Path(os.path.normpath(base / entry.text))  # as shown: no `a/../b`
        include = Include(written, _real(written), portal_file, entry.line)
        why = _refusal(entry.text, include, boundary, own, found)
        if why:
            refuse(entry, why)
        else:
            found.append(include)
    return found, problems


def _refusal(
    text: str, include: Include, boundary: Path, own: Path, earlier: list[Include]
) -> str | None:
    if not text.strip() or os.path.isabs(text):
        return f"{text!r} must be a path relative to the folder of this file"
    real = include.real
    if not _within(real, boundary):
        return f"{text!r} leads outside the repository ({boundary}): includes stay inside it"
    if not real.exists():
        return f"{text!r}: no such folder ({include.folder})"
    if real == own:
        return f"{text!r} is the portal folder itself (an include cycle)"
    if _within(own, real):
        return (
            f"{text!r} holds the portal folder {own}: the portal would include its own"
            " documents again (an include cycle)"
        )
    if _within(real, own):
        return f"{text!r} lies inside the portal folder, whose documents are read already"
    for other in earlier:
        if real == other.real:
            return f"{text!r} is included twice (first at line {other.line})"
        if _within(real, other.real) or _within(other.real, real):
            return f"{text!r} overlaps {other.folder} (included at line {other.line})"
    return None


def repository_root(folder: Path) -> Path:
    """The nearest folder at or above `folder` holding `.git` (a folder, or a file in a
    worktree); outside Git, the working directory."""
    real = _real(folder)
    for candidate in (real, *real.parents):
        if (candidate / ".git").exists():
            return candidate
    return _real(Path.cwd())


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
