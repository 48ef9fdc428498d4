"""One dispatch over the access report's formats; each renders the document alone, and
each writes to a stream as it goes (a 100,000-member report is never one string)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import IO, Any

from reconciler.access.html import write_access_html
from reconciler.access.markdown import write_markdown
from reconciler.access.spreadsheet import write_csv
from reconciler.access.text import write_text

Json = dict[str, Any]


def render_json(document: Json) -> str:
    out = io.StringIO()
    write_json(document, out)
    return out.getvalue()


def write_json(document: Json, out: IO[str]) -> None:
    """Indented like the plan JSON down to the report's lists, whose entries (a member,
    a finding, a role) take one line each: as readable and diffable line by line, and
    written by the C encoder a line at a time."""
    _pretty(document, 0, out)
    out.write("\n")


def _pretty(value: Any, depth: int, out: IO[str]) -> None:
    inner, outer = "  " * (depth + 1), "  " * depth
    if isinstance(value, dict) and value:
        out.write("{\n")
        for n, (k, v) in enumerate(value.items()):
            out.write(f",\n{inner}" if n else inner)
            out.write(f"{json.dumps(k)}: ")
            _pretty(v, depth + 1, out)
        out.write(f"\n{outer}}}")
    elif isinstance(value, list) and value and all(isinstance(i, dict) for i in value):
        # A fleet's portals hold reports, laid out as reports; any other entry is a row.
        nested = any("report" in i for i in value)
        out.write("[\n")
        for n, item in enumerate(value):
            out.write(f",\n{inner}" if n else inner)
            if nested:
                _pretty(item, depth + 1, out)
            else:
                out.write(json.dumps(item))
        out.write(f"\n{outer}]")
    else:
        out.write(json.dumps(value))


WRITERS: dict[str, Callable[[Json, IO[str]], None]] = {
    "text": write_text,
    "json": write_json,
    "csv": lambda document, out: write_csv([document], out),
    "markdown": write_markdown,
    "html": write_access_html,
}
FORMATS: tuple[str, ...] = tuple(WRITERS)


def write_access(document: Json, fmt: str, out: IO[str]) -> None:
    """The report in `fmt`, written to `out` as it is made."""
    WRITERS[fmt](document, out)


def render_access(document: Json, fmt: str) -> str:
    out = io.StringIO()
    write_access(document, fmt, out)
    return out.getvalue()
