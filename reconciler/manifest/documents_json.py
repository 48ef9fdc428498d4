"""Each document of a multi-document manifest file as its own JSON file, for JSON Schema
tools that read one document a file (`check-jsonschema` refuses a YAML stream with
"expected a single document in the stream")."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from reconciler.errors import UserError
from reconciler.files import open_output


def write_document_files(files: tuple[Path, ...], out: Path) -> list[Path]:
    """`out/<file path, / as __>.<n>.json` for the n-th document of each file (from 1)."""
    written: list[Path] = []
    out.mkdir(parents=True, exist_ok=True)
    for source in files:
        stem = source.as_posix().replace("/", "__").lstrip("._")
        for index, document in enumerate(_documents(source), start=1):
            target = out / f"{stem}.{index}.json"
            with open_output(target, "document file") as file:
                file.write(json.dumps(document, indent=2, default=_plain) + "\n")
            written.append(target)
    return written


def _documents(source: Path) -> list[Any]:
    try:
        text = source.read_text(encoding="utf-8")
        return [d for d in YAML(typ="safe").load_all(text) if d is not None]
    except OSError as exc:
        raise UserError(f"{source}: cannot read ({exc.strerror})") from None
    except (YAMLError, UnicodeDecodeError) as exc:
        raise UserError(f"{source}: not YAML: {exc}") from None


def _plain(value: Any) -> str:
    # YAML timestamps are strings to an editor; the schema says `format: date-time`.
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")
