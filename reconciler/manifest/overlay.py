"""Bases and overlays: a document of the portal folder patches the included document of
the same kind and `metadata.name`.

The patch is JSON Merge Patch (RFC 7386) with one addition for sets:
- a scalar or a whole list replaces the included value (`null` too: where a field may be
  null, that leaves it unmanaged);
- a mapping merges key by key (`spec.members`, `spec.workspaces`, a member's fields);
- a set-like list (each kind's `set_fields`: a role's privileges, absent and kept webhooks,
  invalid invitations, retention tasks) may instead be `{add: [...], remove: [...]}`:
  each removed element must be in the included list (a typo would otherwise do
  nothing), an added one already there is kept once.

Rules, each a problem naming the overlay's and the base's file and line:
- two overlays of one document setting one field to different values conflict;
- an overlay that names no included document (`metadata.overlay: true`, or a set patch)
  is refused with the closest name as a suggestion;
- an included document may not be an overlay or hold a set patch itself, nor may an
  included folder hold a Portal (a base is shared; the Portal is the portal's own).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from reconciler.kind import registered
from reconciler.manifest import yamltree
from reconciler.manifest.models import API_VERSION
from reconciler.manifest.problems import Problem, field_path
from reconciler.manifest.raw import KeyPath, Raw, tagged
from reconciler.manifest.suggestions import did_you_mean

# Fields of a document that are its own, never merged: its identity and whom it is for.
_OWN: frozenset[KeyPath] = frozenset(
    {
        ("apiVersion",),
        ("kind",),
        ("metadata", "name"),
        ("metadata", "overlay"),
        ("metadata", "portals"),
        ("metadata", "releases"),
    }
)
_PATCH_KEYS = frozenset({"add", "remove"})


@dataclass(slots=True)
class Merged:
    documents: list[Raw] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    rejected_kinds: set[str] = field(default_factory=set)


def merge(bases: list[Raw], own: list[Raw]) -> Merged:
    """The portal's documents: its own, then the included ones with their overlays
    applied; every problem of the merge."""
    merged = Merged()
    index: dict[tuple[str, str], Raw] = {}
    accepted = [base for base in bases if not _refused_base(base, merged)]
    for base in accepted:
        if base.identity is not None:
            index.setdefault(base.identity, base)
    overlays: dict[tuple[str, str], list[Raw]] = {}
    for document in own:
        identity = document.identity
        if identity is not None and identity in index and identity[0] != "Portal":
            overlays.setdefault(identity, []).append(document)
        elif _is_overlay(document):
            _no_base(document, index, bool(bases), merged)
        else:
            merged.documents.append(document)
    for base in accepted:
        patches = overlays.get(base.identity, []) if base.identity else []
        if patches and index.get(base.identity or ("", "")) is base:
            merged.documents.append(_patched(base, patches, merged))
        else:
            merged.documents.append(base)  # a second one of an identity: the rules name it
    return merged


# --- what is refused ----------------------------------------------------------------------


def _refused_base(base: Raw, merged: Merged) -> bool:
    if base.kind == "Portal":
        _refuse(
            merged,
            base,
            (),
            "an included folder may not hold a Portal document (a base is shared by"
            " portals; each portal folder holds its own)",
        )
        return True
    if _marked_overlay(base):
        _refuse(
            merged,
            base,
            ("metadata", "overlay"),
            "an included document is a base, never an overlay: overlays live in the portal folder",
        )
        return True
    for path in _patch_paths(base):
        _refuse(
            merged,
            base,
            path,
            "{add, remove} patches an included list; an included document declares the whole list",
        )
    return _has_patch(base)


def _no_base(
    document: Raw, index: dict[tuple[str, str], Raw], includes: bool, merged: Merged
) -> None:
    kind, name = document.kind, document.name
    if not includes:
        why = "this portal includes no folder (spec.include)"
    else:
        names = [n for k, n in index if k == kind]
        why = f"no included folder declares {kind} {name!r}{did_you_mean(str(name), names)}"
    path: KeyPath = ("metadata", "overlay") if _marked_overlay(document) else ("metadata", "name")
    _refuse(merged, document, path, f"an overlay patches an included document, but {why}")


def _refuse(merged: Merged, document: Raw, path: KeyPath, message: str) -> None:
    merged.problems.append(_problem(document, path, message))
    merged.rejected_kinds.add(document.kind or "")


def _problem(document: Raw, path: KeyPath, message: str) -> Problem:
    file, line, column = document.locate(path)
    return Problem(file, line, column, document.label, field_path(path), message + document.origin)


def _marked_overlay(document: Raw) -> bool:
    metadata = document.metadata
    return isinstance(metadata, dict) and metadata.get("overlay") is True


def _is_overlay(document: Raw) -> bool:
    return _marked_overlay(document) or _has_patch(document)


def _has_patch(document: Raw) -> bool:
    return any(True for _ in _patch_paths(document))


def _patch_paths(document: Raw) -> Iterator[KeyPath]:
    for path in _set_fields(document.kind):
        if isinstance(_get(document.value, path), dict):
            yield path


def _get(value: Any, path: KeyPath) -> Any:
    for part in path:
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


# --- the merge --------------------------------------------------------------------------


@dataclass(slots=True)
class _Patching:
    base: Raw
    overlay: Raw
    merged: Merged
    sets: frozenset[KeyPath]

    def problem(self, path: KeyPath, message: str) -> None:
        file, line, column = self.overlay.locate(path)
        base_at = f"{self.base.file}:{self.base.locate(path)[1]}"
        self.merged.problems.append(
            Problem(
                file,
                line,
                column,
                self.overlay.label,
                field_path(path),
                f"{message} (base {base_at}{_included(self.base)})",
            )
        )


def _included(base: Raw) -> str:
    return "".join(f", {note}" for note in base.notes)


def _patched(base: Raw, overlays: list[Raw], merged: Merged) -> Raw:
    _conflicts(base, overlays, merged)
    sets = frozenset(_set_fields(base.kind))
    value, positions = base.value, base.positions
    for overlay in overlays:
        patching = _Patching(base, overlay, merged, sets)
        _check_api_version(patching)
        value, positions = _mapping(
            patching, (), value, positions, overlay.value, overlay.positions
        )
    at = ", ".join(f"{o.file}:{o.line}" for o in overlays)
    base_at = f"base {base.file}:{base.line}{_included(base)}"
    return Raw(base.file, yamltree.Tree(value, positions), [base_at, f"patched by {at}"])


def _check_api_version(patching: _Patching) -> None:
    """The merged document keeps the base's own fields (`_OWN`): an overlay's apiVersion
    is checked here, or no check would ever see it."""
    written = patching.overlay.value.get("apiVersion")
    if written == API_VERSION:
        return
    message = (
        "required field is missing"
        if written is None
        else f"must be {API_VERSION!r}, not {written!r}"
    )
    patching.problem(("apiVersion",), message)


def _mapping(
    patching: _Patching,
    path: KeyPath,
    value: dict[Any, Any],
    positions: yamltree.Positions,
    patch: dict[Any, Any],
    patch_positions: yamltree.Positions,
) -> tuple[dict[Any, Any], yamltree.Positions]:
    value = dict(value)
    positions = yamltree.Positions(
        positions.line, positions.column, dict(positions.children), positions.file
    )
    file = patching.overlay.file
    for key, new in patch.items():
        at = (*path, key)
        new_positions = patch_positions.children[key]
        if at in _OWN:
            continue
        if at in patching.sets and isinstance(new, dict):
            _set(patching, at, value, positions, new, new_positions)
        elif isinstance(new, dict):
            # Merged into the base's mapping, or into none: a set patch below it must
            # still find no list to patch rather than reach the models unresolved.
            below, below_at = value.get(key), positions.children.get(key)
            if not isinstance(below, dict) or below_at is None:
                below, below_at = {}, yamltree.Positions(0, 0)
            # The merged mapping is placed where the overlay wrote it, its last writer.
            below_at = yamltree.Positions(
                new_positions.line, new_positions.column, below_at.children, file
            )
            value[key], positions.children[key] = _mapping(
                patching, at, below, below_at, new, new_positions
            )
        else:
            value[key] = new
            positions.children[key] = tagged(new_positions, file)
    return value, positions


def _set(
    patching: _Patching,
    at: KeyPath,
    value: dict[Any, Any],
    positions: yamltree.Positions,
    patch: dict[Any, Any],
    patch_positions: yamltree.Positions,
) -> None:
    """Apply `{add, remove}` to the list at `at` (in place on the copies `value`,
    `positions`)."""
    key = at[-1]
    elements = {k: patch.get(k, []) for k in _PATCH_KEYS}
    if set(patch) - _PATCH_KEYS or not all(_strings(v) for v in elements.values()):
        patching.problem(at, "a set patch is {add: [...], remove: [...]}, lists of text")
        return
    current = value.get(key)
    if not isinstance(current, list):
        patching.problem(at, "patches a list the included document does not declare")
        return
    kept = dict(enumerate(current))
    for index, element in enumerate(elements["remove"]):
        if element in current:
            kept = {i: e for i, e in kept.items() if e != element}
        else:
            close = did_you_mean(element, [str(e) for e in current])
            patching.problem(
                (*at, "remove", index),
                f"removes {element!r}, which the included list does not hold{close}",
            )
    old = positions.children[key]
    items: list[tuple[Any, yamltree.Positions]] = [(e, old.children[i]) for i, e in kept.items()]
    added = patch_positions.children.get("add")
    for index, element in enumerate(elements["add"]):
        if element not in (e for e, _ in items):
            assert added is not None
            items.append((element, tagged(added.children[index], patching.overlay.file)))
    value[key] = [e for e, _ in items]
    children: dict[Any, yamltree.Positions] = {i: p for i, (_, p) in enumerate(items)}
    written = patch_positions
    positions.children[key] = yamltree.Positions(
        written.line, written.column, children, patching.overlay.file
    )


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


# --- conflicts ----------------------------------------------------------------------------


def _conflicts(base: Raw, overlays: list[Raw], merged: Merged) -> None:
    """Two overlays of one document that set one field to different values."""
    sets = frozenset(_set_fields(base.kind))
    first: dict[KeyPath, tuple[Any, Raw]] = {}
    for overlay in overlays:
        for path, value in _leaves(overlay.value, (), sets, base.value):
            if path not in first:
                first[path] = (value, overlay)
                continue
            earlier_value, earlier = first[path]
            if earlier_value != value:
                earlier_at = f"{earlier.file}:{earlier.locate(path)[1]}"
                patching = _Patching(base, overlay, merged, sets)
                patching.problem(
                    path,
                    f"two overlays set this field differently: here and at {earlier_at}",
                )


def _leaves(
    value: Any, path: KeyPath, sets: frozenset[KeyPath], base: Any
) -> Iterator[tuple[KeyPath, Any]]:
    """The fields an overlay sets: a mapping it merges into a mapping of the base is
    descended into; anything else is one field."""
    if path in _OWN:
        return
    if isinstance(value, dict) and path not in sets and (not path or isinstance(base, dict)):
        for key, child in value.items():
            below = base.get(key) if isinstance(base, dict) else None
            yield from _leaves(child, (*path, key), sets, below)
        return
    yield path, value


def _set_fields(kind: str | None) -> tuple[tuple[str, ...], ...]:
    """The set-like lists of `kind`: none for the Portal or a kind that does not exist."""
    return next((k.set_fields for k in registered() if k.name == kind), ())
