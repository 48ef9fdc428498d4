"""Fleets: find the portal folders below a root, one Portal document each.

A fleet keeps one folder per portal (`portals/prod`, `portals/staging`, ...); CI runs one
job per folder. A portal folder is the folder of the file that holds its Portal document,
and everything below it belongs to that portal.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from reconciler.errors import UserError
from reconciler.live.credentials import portal_variables
from reconciler.manifest.loader import manifest_files  # the files `plan` would read, no others


@dataclass(frozen=True, slots=True)
class Target:
    """One portal folder of a fleet."""

    name: str  # the Portal document's metadata.name
    path: Path  # the portal folder
    url: str  # spec.url as declared (never a credential)

    def secrets(self) -> dict[str, str]:
        """The names of this portal's own credential variables (valid secret names)."""
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
    inside another: either would make `orgctl plan <folder>` see two portals.
    """
    found: dict[Path, tuple[Path, Target]] = {}
    for file in manifest_files(root):
        for document in _documents(file):
            if _is_portal(document):
                _add(found, file, _target(file, document))
    _refuse_nested(found)
    return [target for _, target in sorted(found.values(), key=lambda entry: entry[1].path)]


def _documents(file: Path) -> Iterator[Any]:
    try:
        yield from YAML(typ="safe", pure=True).load_all(file.read_text(encoding="utf-8"))
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise UserError(f"{file}{line}: not valid YAML ({getattr(exc, 'problem', exc)})") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{file}: cannot be read ({exc})") from exc


def _is_portal(document: Any) -> bool:
    return isinstance(document, dict) and document.get("kind") == "Portal"


def _target(file: Path, document: dict[str, Any]) -> Target:
    metadata = document.get("metadata") or {}
    spec = document.get("spec") or {}
    name = str(metadata.get("name") or file.parent.name)
    return Target(name=name, path=file.parent, url=str(spec.get("url", "")))


def _add(found: dict[Path, tuple[Path, Target]], file: Path, target: Target) -> None:
    if target.path in found:
        first_file, _ = found[target.path]
        raise UserError(
            f"{target.path}: two Portal documents in one portal folder ({first_file} and"
            f" {file}); give each portal its own folder"
        )
    found[target.path] = (file, target)


def _refuse_nested(found: dict[Path, tuple[Path, Target]]) -> None:
    folders = sorted(found)
    for outer in folders:
        for inner in folders:
            if inner != outer and outer in inner.parents:
                raise UserError(
                    f"{inner}: portal folder inside portal folder {outer}; a plan of {outer}"
                    " would see both portals"
                )
