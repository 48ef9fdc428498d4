"""Fleets: find the portal folders below a root, one Portal document each.

A fleet keeps one folder per portal (`portals/prod`, `portals/staging`, ...); CI runs one
job per folder, or `validate`, `plan` and `drift` take the whole fleet in one process. A
portal folder is the folder of the file that holds its Portal document, and everything
below it belongs to that portal; folders holding no Portal (a shared base) are read only
through a Portal's `spec.include`.

Only files that mention "Portal" are parsed, with the manifests' own reader: a fleet of
fifty portals of a thousand members each is found without reading the members.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from reconciler.environment import variable_stem
from reconciler.errors import ManifestError, UserError
from reconciler.manifest import yamltree
from reconciler.manifest.includes import Include
from reconciler.manifest.loader import (  # the files `plan` would read, no others
    includes_of,
    looks_like_manifest,
    manifest_files,
    read,
)


@dataclass(frozen=True, slots=True)
class Target:
    """One portal folder of a fleet."""

    name: str  # the Portal document's metadata.name
    path: Path  # the portal folder
    url: str  # spec.url as declared (never a credential)
    portal_file: Path | None = None  # the file holding the Portal document

    def secrets(self) -> dict[str, str]:
        """The names of this portal's own credential variables (valid secret names)."""
        # Imported here: `validate` of a fleet must not load the HTTP client.
        from reconciler.live.credentials import portal_variables

        own = portal_variables(self.name)
        return {
            "token": str(own.tokenEnv),
            "username": str(own.usernameEnv),
            "password": str(own.passwordEnv),
        }

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "path": self.path.as_posix(),
            "url": self.url,
            "secrets": self.secrets(),
        }


def find_targets(root: Path) -> list[Target]:
    """The portal folders below `root`, sorted by path.

    Raises UserError when two Portal documents share a folder or one portal folder lies
    inside another (either would make `orgctl plan <folder>` see two portals), when a
    manifest is not valid YAML, and when no portal reads a manifest.
    """
    return _scan(root, syntax=True).checked()


@dataclass(frozen=True, slots=True)
class _Scan:
    targets: list[Target]  # sorted by path
    meant: list[Path]  # the files whose words look like orgctl's

    def checked(self) -> list[Target]:
        """The portals, once every manifest is read by one and no two share a name."""
        _refuse_unread(self.meant, self.targets)
        refuse_same_names(self.targets)
        return self.targets


def _scan(root: Path, syntax: bool) -> _Scan:
    """The portals below `root`; `syntax`: also check the YAML of every manifest that
    holds no Portal (`targets` names a broken one; a portal's own load names it too)."""
    found: dict[Path, tuple[Path, Target]] = {}
    meant: list[Path] = []
    for file in manifest_files(root):
        text = _text(file)
        if looks_like_manifest(text):
            meant.append(file)
        for document in _documents(file, text, syntax):
            if _is_portal(document):
                _add(found, file, _target(file, document))
    _refuse_nested(found)
    targets = [target for _, target in sorted(found.values(), key=lambda entry: entry[1].path)]
    return _Scan(targets, meant)


def select(paths: Sequence[Path]) -> list[Target] | None:
    """The portals that `validate`, `plan` or `drift` of `paths` concern: None for one
    path holding at most one Portal (one portal, read as it always was), else a target for
    each path that holds one Portal (that path is its folder) and for each portal below a
    path that holds several.

    Each path is scanned once, and only files that mention "Portal" are parsed: a YAML
    error in a portal's other files fails that portal alone, named by its own load with
    file and line, as every other problem of one portal does (checking them all here took
    50 ms of a 50-portal fleet's start, before any portal could begin)."""
    if not paths:
        raise UserError("give a portal folder, a fleet root or several portal folders")
    if len(paths) == 1:
        try:
            scans = [_scan(paths[0], syntax=False)]
        except UserError:
            # Two Portals in one folder, broken YAML: validating the one folder names them
            # with file and line, as it always did.
            return None
        if len(scans[0].targets) <= 1:
            return None
    else:
        scans = [_scan(path, syntax=False) for path in paths]
    found: list[Target] = []
    for path, scan in zip(paths, scans, strict=True):
        targets = scan.checked()
        if not targets:
            raise UserError(f"{path}: no Portal document below it")
        if len(targets) == 1:
            targets = [replace(targets[0], path=path)]
        found += targets
    unique = list({t.path.resolve(): t for t in found}.values())
    refuse_same_names(unique)
    return unique


def _text(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{file}: cannot be read ({exc})") from exc


def _refuse_unread(meant: list[Path], targets: list[Target]) -> None:
    """A file meant for orgctl that no portal reads (a Portal whose `kind` is missing
    or misspelt, a base no Portal includes) would be dropped in silence: CI would plan
    two portals of three and say nothing of the third."""
    folders = {Path(os.path.realpath(t.path)) for t in targets}
    folders |= {include.real for target in targets for include in _includes(target)}
    # A file is read when it or one of its folders is a portal's or an include's: a look-up
    # per folder above it, not a comparison with every folder (a fleet of 1,000 portals
    # took minutes).
    outside = [file for file in meant if not _in_any(Path(os.path.realpath(file)), folders)]
    # Read as plan reads: a Kubernetes Role (its words look like ours) is no manifest.
    unread = [(file, line) for file in outside if (line := _manifest_at(file))]
    if unread:
        raise ManifestError(
            [
                f"{file}:{line}: no portal reads this manifest: no Portal document in its"
                " folder or above it, and no Portal's spec.include names its folder (a"
                " Portal document that cannot be read? validate that folder alone)"
                for file, line in unread
            ]
        )


def _manifest_at(file: Path) -> int:
    """The line of the first orgctl document (or problem) of `file`; 0 when it holds none."""
    reading = read(file)
    if reading.documents:
        return reading.documents[0].line
    return reading.problems[0].line if reading.problems else 0


def _documents(file: Path, text: str, syntax: bool) -> Iterator[Any]:
    try:
        if "Portal" in text:
            for tree in yamltree.trees(text):
                yield tree.value if tree is not None else None
        elif syntax and looks_like_manifest(text):
            yamltree.check_syntax(text)  # a broken manifest is named here, as plan would
    except yamltree.TreeError as exc:
        if looks_like_manifest(text):
            raise UserError(f"{file}:{exc.line}: not valid YAML ({exc.message})") from exc


def _is_portal(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and document.get("kind") == "Portal"
        and str(document.get("apiVersion", "orgctl/")).startswith("orgctl/")
    )


def _target(file: Path, document: dict[str, Any]) -> Target:
    metadata = document.get("metadata") or {}
    spec = document.get("spec") or {}
    name = str(metadata.get("name") or file.parent.name)
    return Target(name=name, path=file.parent, url=str(spec.get("url", "")), portal_file=file)


def _add(found: dict[Path, tuple[Path, Target]], file: Path, target: Target) -> None:
    if target.path in found:
        first_file, _ = found[target.path]
        raise UserError(
            f"{target.path}: two Portal documents in one portal folder ({first_file} and"
            f" {file}); give each portal its own folder"
        )
    found[target.path] = (file, target)


def _refuse_nested(found: dict[Path, tuple[Path, Target]]) -> None:
    for inner in sorted(found):
        outer = next((parent for parent in inner.parents if parent in found), None)
        if outer is not None:
            raise UserError(
                f"{inner}: portal folder inside portal folder {outer}; a plan of {outer}"
                " would see both portals"
            )


def refuse_same_names(targets: list[Target]) -> None:
    # A portal's name picks its credentials (ORGCTL_<NAME>_TOKEN) and keys its report.
    seen: dict[str, Target] = {}
    for target in targets:
        key = variable_stem(target.name)
        if key in seen:
            raise UserError(
                f"two portals named alike, {seen[key].name!r} ({seen[key].path}) and"
                f" {target.name!r} ({target.path}): the name picks a portal's credentials"
                f" ({key}_TOKEN), so each portal of a fleet needs its own"
            )
        seen[key] = target


def affected(targets: Sequence[Target], files: Sequence[Path]) -> list[Target]:
    """The portals that changed `files` concern: a file inside a portal folder, or inside
    a folder its Portal includes (a base concerns every portal including it). A file
    that was deleted counts by its path."""
    changed = [Path(os.path.realpath(f)) for f in files]
    found = []
    for target in targets:
        folders = [Path(os.path.realpath(target.path)), *(i.real for i in _includes(target))]
        if any(_within(file, folder) for file in changed for folder in folders):
            found.append(target)
    return found


def _includes(target: Target) -> list[Include]:
    if target.portal_file is None:
        return []
    reading = read(target.portal_file)
    portal = next((d for d in reading.documents if d.kind == "Portal"), None)
    return includes_of(portal, target.path)[0] if portal is not None else []


def _in_any(path: Path, folders: set[Path]) -> bool:
    return path in folders or any(parent in folders for parent in path.parents)


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
