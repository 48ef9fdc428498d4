"""Files orgctl writes (saved plans, reports, journals): opened in one place, so a missing
folder or a refused permission is one message naming the file, never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import IO

from reconciler.errors import UserError


def open_output(path: Path, what: str, mode: str = "w") -> IO[str]:
    """`path` opened to write text; `what` names the file in the error ("journal")."""
    try:
        return path.open(mode, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{path}: cannot write the {what} ({exc.strerror or exc})") from None
