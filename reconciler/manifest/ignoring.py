"""Ignore rules of the manifests: `metadata.ignoreChanges` (field paths under `spec`) and
`spec.ignorePrivileges` (shell-style privilege patterns), the parts that need no portal.

A path names fields of the kind's own spec model, dot-separated; `*` stands for any
element of a list or any key of a map (`workspaces.*.schedule.startTime`), and a map's
key may also be written as itself (`members.alice.level`). The path is checked against
the kind's pydantic model, so a kind declares nothing for its fields to be ignorable.

An ignored field is taken out of the document before it becomes desired state: the
field is then not managed (README: "a field that is absent is not managed"), so it is
neither planned nor reported as drift, and a call that must send the whole object sends
the live value, as for any field left out. A resource orgctl creates is created with
every declared field (`DesiredState.declared`), as Terraform's `ignore_changes` applies
to updates only.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from reconciler.manifest.annotations import element_of, model_of
from reconciler.manifest.checks import text
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.manifest.raw import KeyPath
from reconciler.manifest.suggestions import closest

ANY = "*"
# What makes a privilege pattern more than one privilege's id (fnmatch's special characters).
WILDCARDS = frozenset("*?[")
_PREFIX = "spec."


def segments(path: str) -> tuple[str, ...]:
    """`spec.members.*.level` or `members.*.level` as ("members", "*", "level")."""
    body = path[len(_PREFIX) :] if path.startswith(_PREFIX) else path
    return tuple(body.split("."))


def shown(path: str) -> str:
    """The path as plan and drift name it: `spec.members.*.level`."""
    return _PREFIX + ".".join(segments(path))


# --- the kind's spec model --------------------------------------------------------------------


def spec_model(document_model: type[BaseModel]) -> type[BaseModel]:
    found = model_of(document_model.model_fields["spec"].annotation)
    assert found is not None, f"{document_model.__name__}.spec is no model"
    return found


def every_path(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> Iterator[str]:
    """Every path of fields below `model`, with `*` for each element or key."""
    for name, info in model.model_fields.items():
        here = (*prefix, name)
        yield ".".join(here)
        annotation = info.annotation
        while (element := element_of(annotation)) is not None:
            here, annotation = (*here, ANY), element
        nested = model_of(annotation)
        if nested is not None:
            yield from every_path(nested, here)


def path_problem(model: type[BaseModel], path: str) -> str | None:
    """Why `path` names no ignorable field of the spec `model`, or None."""
    parts = segments(path)
    if not all(parts):
        return f"{path!r} is not a field path (fields joined by '.', '*' for any key)"
    node: Any = model
    general: list[str] = []  # the path with `*` for every key, as `every_path` writes it
    for index, part in enumerate(parts):
        nested = model_of(node)
        if nested is None and element_of(node) is not None:
            node = element_of(node)  # `*` or one key of a map
            general.append(ANY)
            continue
        if nested is None or part not in nested.model_fields:
            return _unknown(model, parts, index, [*general, *parts[index:]])
        node = nested.model_fields[part].annotation
        general.append(part)
    return _leaf_problem(model, parts)


def _unknown(model: type[BaseModel], parts: tuple[str, ...], index: int, general: list[str]) -> str:
    written = ".".join(parts)
    # Compared with `*` where the path wrote a key, so `members.alice.levle` finds its field.
    hint = closest(".".join(general), every_path(model))
    where = _PREFIX + ".".join(parts[:index]) if index else "spec"
    suggestion = f"; did you mean {_PREFIX}{hint}?" if hint else ""
    return f"{_PREFIX}{written}: {where} has no field {parts[index]!r}{suggestion}"


def _leaf_problem(model: type[BaseModel], parts: tuple[str, ...]) -> str | None:
    """An ignored field must be one the document may leave out to mean "not managed"."""
    owner: Any = model
    for part in parts[:-1]:
        nested = model_of(owner)
        owner = element_of(owner) if nested is None else nested.model_fields[part].annotation
    nested = model_of(owner)
    written = _PREFIX + ".".join(parts)
    if nested is None:
        return f"{written}: name a field, not every element or key ('{ANY}') of one"
    info = nested.model_fields[parts[-1]]
    if info.is_required():
        return f"{written}: a required field cannot be ignored"
    default = info.get_default(call_default_factory=True)
    if default not in (None, [], {}) and default is not PydanticUndefined:
        return f"{written}: cannot be ignored: left out, it means {default!r}, not 'not managed'"
    return None


# --- validate ---------------------------------------------------------------------------------


def change_problems(document: Document, document_model: type[BaseModel]) -> Iterator[Problem]:
    """Each `metadata.ignoreChanges` path the kind's spec does not have, at its line."""
    paths = ignore_changes(document)
    if not paths:  # most documents: no model to look into
        return
    model = spec_model(document_model)
    for index, path in enumerate(paths):
        problem = path_problem(model, path)
        if problem:
            yield document.problem(("metadata", "ignoreChanges", index), problem)


def pattern_problems(
    document: Document, where: KeyPath, patterns: Sequence[str]
) -> Iterator[Problem]:
    """Patterns the portal could never hold: blank, or with control characters."""
    for index, pattern in enumerate(patterns):
        if not pattern.strip():
            yield document.problem((*where, index), "a privilege pattern must not be blank")
        else:
            yield from text(document, (*where, index), pattern, label="privilege pattern")


def ignore_changes(document: Document) -> list[str]:
    return list(getattr(document.model.metadata, "ignoreChanges", None) or ())


# --- desired state ----------------------------------------------------------------------------


def stripped(document: Document) -> Document:
    """The document without the fields its `metadata.ignoreChanges` names (validated)."""
    paths = ignore_changes(document)
    if not paths:
        return document
    spec = document.model.spec  # type: ignore[attr-defined]  # every kind has a spec
    data = spec.model_dump()
    for path in paths:
        remove(data, segments(path))
    model = document.model.model_copy(update={"spec": type(spec).model_validate(data)})
    return replace(document, model=model)


def remove(data: Any, parts: tuple[str, ...]) -> None:
    """Take the values `parts` names out of `data` (plain dicts and lists, in place)."""
    head, rest = parts[0], parts[1:]
    if isinstance(data, list):
        for item in data if head == ANY and rest else ():
            remove(item, rest)
        return
    if not isinstance(data, dict):
        return
    for key in list(data) if head == ANY else [head] if head in data else []:
        if rest:
            remove(data[key], rest)
        else:
            del data[key]
