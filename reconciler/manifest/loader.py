"""Read manifest files into validated documents that remember where each key was written.

`yamltree` keeps the line and column of every key and list item, so a pydantic error's
`loc` can be mapped back to the line that caused it. Every problem is collected; nothing
stops at the first.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from reconciler import catalog
from reconciler.errors import UserError
from reconciler.manifest import limits, models, yamltree
from reconciler.manifest.folder import list_manifests
from reconciler.manifest.problems import Problem, field_path

KeyPath = tuple[str | int, ...]
_ADAPTER: TypeAdapter[models.AnyDocument] = TypeAdapter(models.AnyDocument)
_SECRET_KEYS = frozenset({"token", "password", "secret", "apikey", "apiKey", "username"})


@dataclass(frozen=True, slots=True)
class Document:
    """One validated manifest document and the YAML tree it came from (for positions)."""

    file: str
    line: int
    model: models.AnyDocument
    positions: yamltree.Positions

    @property
    def kind(self) -> str:
        return self.model.kind

    @property
    def name(self) -> str:
        return self.model.metadata.name

    @property
    def resource(self) -> str:
        return f'{self.kind} "{self.name}"'

    def position(self, path: KeyPath) -> tuple[int, int]:
        return _position(self.positions, path, (self.line, 1))

    def problem(self, path: KeyPath, message: str) -> Problem:
        line, column = self.position(path)
        return Problem(self.file, line, column, self.resource, field_path(path), message)


@dataclass(slots=True)
class Loaded:
    documents: list[Document]
    problems: list[Problem]
    # Kinds of documents refused ("" when the kind is unknowable, as in unparsable YAML):
    # a broken Portal still counts as one, so the user is not also told there is none.
    rejected_kinds: set[str] = field(default_factory=set)


def manifest_files(path: Path) -> list[Path]:
    """The manifest files of a folder (recursively, sorted) or the one file given; any
    entry that cannot be read is an error naming it."""
    listing = list_manifests(path)
    if listing.problems:
        raise UserError("\n".join(f"{entry}: {why}" for entry, why in listing.problems))
    return listing.files


def load(path: Path) -> Loaded:
    loaded = Loaded([], [])
    listing = list_manifests(path)
    files = listing.files
    for entry, why in listing.problems:
        loaded.problems.append(Problem(str(entry), 1, 1, "", "", why))
    if not files and not listing.problems:
        loaded.problems.append(Problem(str(path), 1, 1, "", "", "no *.yaml or *.yml files found"))
    for file in files:
        for problem_or_doc in _read_file(file):
            if isinstance(problem_or_doc, Problem):
                loaded.problems.append(problem_or_doc)
                loaded.rejected_kinds.add(problem_or_doc.resource.split(" ")[0])
            else:
                loaded.documents.append(problem_or_doc)
    return loaded


def _read_file(file: Path) -> Iterator[Document | Problem]:
    name = str(file)
    try:
        size = file.stat().st_size
        if size > limits.MAX_FILE_BYTES:
            yield Problem(name, 1, 1, "", "", f"{size:,} bytes: larger than any manifest")
            return
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        yield Problem(name, 1, 1, "", "", f"cannot read: {exc}")
        return
    try:
        # Documents read before an error are still checked, so that every problem of the
        # file is reported.
        for tree in yamltree.trees(text):
            if tree is not None:
                yield from _document(name, tree)
    except yamltree.TreeError as exc:
        yield Problem(name, exc.line, exc.column, "", "", f"YAML: {exc.message}")


def _document(file: str, tree: yamltree.Tree) -> Iterator[Document | Problem]:
    line = tree.positions.line
    value = tree.value
    if not isinstance(value, dict):
        yield Problem(file, line, 1, "", "", "a document must be a mapping")
        return
    resource = _resource_label(value)
    kind = value.get("kind")
    if kind not in models.KINDS:
        at = _position(tree.positions, ("kind",), (line, 1))
        expected = ", ".join(models.KINDS)
        message = (
            f"unknown kind {kind!r} (expected one of {expected})"
            if kind is not None
            else f"required field is missing (one of {expected})"
        )
        yield Problem(file, at[0], at[1], resource, "kind", message)
        return
    try:
        model = _ADAPTER.validate_python(value)
    except ValidationError as exc:
        for error in exc.errors():
            yield _validation_problem(file, line, tree, resource, error)
        return
    yield Document(file, line, model, tree.positions)


def _validation_problem(
    file: str, line: int, tree: yamltree.Tree, resource: str, error: Any
) -> Problem:
    loc: KeyPath = tuple(error["loc"])
    if loc and loc[0] == tree.value.get("kind"):
        loc = loc[1:]  # the discriminated union puts the kind first
    at_line, column = _position(tree.positions, loc, (line, 1))
    return Problem(file, at_line, column, resource, field_path(loc), _message(loc, error))


def _message(loc: KeyPath, error: Any) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        key = loc[-1] if loc else "?"
        if len(loc) >= 2 and loc[-2] == "auth" and key in _SECRET_KEYS:
            return (
                f"a literal secret ({key!r}) may not be written in a manifest; auth holds only"
                " environment variable names: tokenEnv, or usernameEnv + passwordEnv"
            )
        return f"unknown field {key!r}"
    if kind == "missing":
        return "required field is missing"
    if kind == "string_type" and loc[-1:] == ("version",):
        return 'must be a quoted string such as "10.6.1" (YAML reads 10.10 as the number 10.1)'
    bounds = catalog.WEBHOOK_SETTINGS.get(str(loc[-1])) if loc else None
    if bounds and kind in ("greater_than_equal", "less_than_equal"):
        return bounds.problem(str(loc[-1]), error["input"]) or error["msg"]
    message: str = error["msg"]
    return message.removeprefix("Value error, ")


def _resource_label(document: dict[str, Any]) -> str:
    kind = document.get("kind")
    metadata = document.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if kind is None:
        return ""
    return f'{kind} "{name}"' if name is not None else str(kind)


def _position(
    positions: yamltree.Positions, path: KeyPath, fallback: tuple[int, int]
) -> tuple[int, int]:
    """Line and column (1-based) of the deepest key or item of `path` that exists."""
    at = fallback
    node = positions
    for part in path:
        child = node.children.get(part)
        if child is None:
            break
        at = (child.line, child.column)
        node = child
    return at
