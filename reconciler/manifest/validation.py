"""Validation of a manifest folder: the documents and every problem found in them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from reconciler.manifest import limits, loader, rules
from reconciler.manifest.loader import Document, Loaded
from reconciler.manifest.problems import Problem, capped_per_document


@dataclass(frozen=True, slots=True)
class Checked:
    """A portal's manifest set, validated: what `validate`, `render` and `plan` share."""

    documents: list[Document]
    problems: list[Problem]  # sorted by file and line, each once
    loaded: Loaded
    warnings: list[Problem] = field(default_factory=list)  # as the problems; none fails


def check(path: Path, environ: Mapping[str, str] | None = None) -> Checked:
    """The manifests under `path`, checked with `environ`'s URL overrides (None: none)."""
    env = {} if environ is None else environ
    loaded = loader.load(path)
    problems = loaded.problems + rules.check(
        loaded.documents, str(path), env, loaded.rejected_kinds
    )
    errors = [p for p in set(problems) if not p.warning]
    warnings = [p for p in set(problems) if p.warning]
    return Checked(loaded.documents, _capped(errors), loaded, _capped(warnings))


def _capped(problems: list[Problem]) -> list[Problem]:
    return capped_per_document(sorted(problems), limits.MAX_PROBLEMS_PER_DOCUMENT)


def validate(
    path: Path, environ: Mapping[str, str] | None = None
) -> tuple[list[Document], list[Problem]]:
    """The documents under `path` and every problem found in them, sorted by file and line."""
    checked = check(path, environ)
    return checked.documents, checked.problems
