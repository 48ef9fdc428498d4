"""Validation of a manifest folder: the documents and every problem found in them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from reconciler.manifest import loader, rules
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem


def validate(
    path: Path, environ: Mapping[str, str] | None = None
) -> tuple[list[Document], list[Problem]]:
    """The documents under `path` and every problem found in them, sorted by file and line."""
    env = os.environ if environ is None else environ
    loaded = loader.load(path)
    problems = loaded.problems + rules.check(
        loaded.documents, str(path), env, loaded.rejected_kinds
    )
    return loaded.documents, sorted(set(problems))
