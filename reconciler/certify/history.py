"""When each decision was made, and by whom: from Git when the review file is in a
repository (`git blame` of the decision's line: the commit that wrote it), else said
plainly what the time is instead (the file's modification time)."""

from __future__ import annotations

import datetime as dt
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

Json = dict[str, Any]
UNCOMMITTED = "0" * 40  # the commit git blame gives a line not committed yet


def line_commits(path: Path, lines: Iterable[int]) -> dict[int, Json]:
    """For each of `lines` (1-based) of `path`, where its time comes from: `source` is
    `git` (with `commit`, `author` and `time`, the commit's), `working tree` (in a
    repository, not committed) or `file` (no repository)."""
    wanted = set(lines)
    blamed = _blame(path)
    mtime = _iso(path.stat().st_mtime)
    if blamed is None:
        note = "not in a Git repository: the review file's modification time"
        return {n: {"source": "file", "time": mtime, "note": note} for n in wanted}
    found = {}
    for number in wanted:
        commit = blamed.get(number)
        if commit is None or commit["commit"] == UNCOMMITTED:
            note = "not committed: the review file's modification time"
            found[number] = {"source": "working tree", "time": mtime, "note": note}
        else:
            found[number] = {"source": "git", **commit}
    return found


def _blame(path: Path) -> dict[int, Json] | None:
    """Each line's commit by `git blame --line-porcelain`; None outside a repository (or
    a file Git does not track)."""
    try:
        done = subprocess.run(
            ["git", "blame", "--line-porcelain", "--", path.name],
            cwd=path.parent,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:  # no git installed
        return None
    if done.returncode != 0:
        return None
    return _parsed(done.stdout)


def _parsed(porcelain: str) -> dict[int, Json]:
    found: dict[int, Json] = {}
    current: Json = {}
    line = 0
    for text in porcelain.splitlines():
        if text.startswith("\t"):  # the line's content ends its record
            found[line] = current
            current = {}
        elif not current and " " in text and len(text.split(" ", 1)[0]) == 40:
            sha, _original, final = text.split(" ")[:3]
            line = int(final)
            current = {"commit": sha}
        elif text.startswith("author "):
            current["author"] = text[len("author ") :]
        elif text.startswith("committer-time "):
            current["time"] = _iso(float(text.split(" ")[1]))
    return found


def _iso(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
