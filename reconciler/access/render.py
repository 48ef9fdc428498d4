"""One dispatch over the access report's formats; each renders the document alone."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from reconciler.access.markdown import render_markdown
from reconciler.access.spreadsheet import render_csv
from reconciler.access.text import render_text

Json = dict[str, Any]


def render_json(document: Json) -> str:
    return json.dumps(document, indent=2) + "\n"


RENDERERS: dict[str, Callable[[Json], str]] = {
    "text": render_text,
    "json": render_json,
    "csv": lambda document: render_csv([document]),
    "markdown": render_markdown,
}
FORMATS: tuple[str, ...] = tuple(RENDERERS)


def render_access(document: Json, fmt: str) -> str:
    return RENDERERS[fmt](document)
