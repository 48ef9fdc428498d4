"""Read manifest files into validated documents that remember where each key was written.

ruamel.yaml's round-trip loader keeps the line and column of every key and list item, so
a pydantic error's `loc` can be mapped back to the line that caused it. Every problem is
collected; nothing stops at the first.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from reconciler import catalog
from reconciler.errors import UserError
from reconciler.manifest import models
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
    tree: CommentedMap

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
        return _position(self.tree, path, (self.line, 1))

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
    """The manifest files of a folder (recursively, sorted) or the one file given."""
    if not path.exists():
        raise UserError(f"{path}: no such file or folder")
    if path.is_file():
        return [path]
    found = [
        p
        for p in path.rglob("*")
        if p.suffix in (".yaml", ".yml") and p.is_file() and not _hidden(p.relative_to(path))
    ]
    return sorted(found)


def _hidden(relative: Path) -> bool:
    # A manifest folder may be a repository root: .github/ workflows are not manifests.
    return any(part.startswith(".") for part in relative.parts)


def load(path: Path) -> Loaded:
    loaded = Loaded([], [])
    files = manifest_files(path)
    if not files:
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
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        yield Problem(name, 1, 1, "", "", f"cannot read: {exc}")
        return
    yaml = YAML(typ="rt")
    try:
        # Documents read before a syntax error are still checked, so that every problem
        # of the file is reported.
        for tree in yaml.load_all(text):
            if tree is not None:
                yield from _document(name, tree)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = (exc.problem or exc.context or "invalid YAML").strip()
        if "duplicate key" in what:
            what = _duplicate_key_message(exc)
        yield Problem(name, line, column, "", "", f"YAML: {what}")
    except YAMLError as exc:
        yield Problem(name, 1, 1, "", "", f"YAML: {exc}")


def _duplicate_key_message(exc: MarkedYAMLError) -> str:
    # ruamel's own text repeats both values, which may be secrets: name the key only.
    match = re.search(r'duplicate key "(.*?)" with value', exc.problem or "")
    key = f" {match.group(1)!r}" if match else ""
    first = exc.context_mark
    where = f" (first at line {first.line + 1})" if first else ""
    return f"duplicate key{key}{where}"


def _document(file: str, tree: Any) -> Iterator[Document | Problem]:
    if not isinstance(tree, CommentedMap):
        line = tree.lc.line + 1 if hasattr(tree, "lc") else 1
        yield Problem(file, line, 1, "", "", "a document must be a mapping")
        return
    line = tree.lc.line + 1
    resource = _resource_label(tree)
    kind = tree.get("kind")
    if kind not in models.KINDS:
        at = _position(tree, ("kind",), (line, 1))
        expected = ", ".join(models.KINDS)
        message = (
            f"unknown kind {kind!r} (expected one of {expected})"
            if kind is not None
            else f"required field is missing (one of {expected})"
        )
        yield Problem(file, at[0], at[1], resource, "kind", message)
        return
    try:
        model = _ADAPTER.validate_python(_plain(tree))
    except ValidationError as exc:
        for error in exc.errors():
            yield _validation_problem(file, line, tree, resource, error)
        return
    yield Document(file, line, model, tree)


def _validation_problem(
    file: str, line: int, tree: CommentedMap, resource: str, error: Any
) -> Problem:
    loc: KeyPath = tuple(error["loc"])
    if loc and loc[0] == tree.get("kind"):
        loc = loc[1:]  # the discriminated union puts the kind first
    at_line, column = _position(tree, loc, (line, 1))
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


def _resource_label(tree: CommentedMap) -> str:
    kind = tree.get("kind")
    metadata = tree.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if kind is None:
        return ""
    return f'{kind} "{name}"' if name is not None else str(kind)


def _position(tree: Any, path: KeyPath, fallback: tuple[int, int]) -> tuple[int, int]:
    """Line and column (1-based) of the deepest key or item of `path` that exists."""
    at = fallback
    node = tree
    for part in path:
        if isinstance(node, CommentedMap) and part in node:
            line, column = node.lc.key(part)
        elif isinstance(node, CommentedSeq) and isinstance(part, int) and part < len(node):
            line, column = node.lc.item(part)
        else:
            break
        at = (line + 1, column + 1)
        node = node[part]
    return at


def _plain(node: Any) -> Any:
    """ruamel's round-trip types as plain Python values, for strict validation."""
    if isinstance(node, dict):
        return {_plain(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    if isinstance(node, bool):
        return bool(node)
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    return node  # datetimes and dates stay as they are, for the startTime parser
