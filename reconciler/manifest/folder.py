"""Which files a manifest folder holds: every `*.yaml` and `*.yml` below it, read
completely or not at all.

Symbolic links are followed while they stay inside the folder given (its real path), each
real folder once: a link back to a folder already read is refused, as is any entry that
cannot be read (a broken link, a FIFO, a folder without permission). Skipping one silently
would make a whole file of roles unmanaged while validate says "no problems".

A link out of the folder is refused, not followed: manifests arrive in pull requests, and a
link to `/` or `/proc` made validate walk the whole machine (every file it can read, a
problem line for each). A folder shared by several portals is included by the Portal
(`spec.include`), whose rules keep it inside the repository.
Hidden files and folders (`.git`, `.github`) are not manifests.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from reconciler.errors import UserError

SUFFIXES = (".yaml", ".yml")


@dataclass(slots=True)
class Listing:
    files: list[Path] = field(default_factory=list)
    problems: list[tuple[Path, str]] = field(default_factory=list)  # (entry, why)


def list_manifests(path: Path) -> Listing:
    """The manifest files of a folder (recursively, sorted) or the one file given."""
    if not path.exists():
        raise UserError(f"{path}: no such file or folder")
    listing = Listing()
    if not path.is_dir():
        _add_file(listing, path)
        return listing
    seen: dict[str, Path] = {}
    _walk(Path(os.path.realpath(path)), path, seen, listing)
    listing.files.sort()
    return listing


def _walk(root: Path, folder: Path, seen: dict[str, Path], listing: Listing) -> None:
    """Read `folder`, below the real folder `root` that links may not leave."""
    real = os.path.realpath(folder)
    if real in seen:
        listing.problems.append((folder, f"a link to a folder already read ({seen[real]})"))
        return
    seen[real] = folder
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        listing.problems.append((folder, f"cannot read this folder ({exc.strerror or exc})"))
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue  # a manifest folder may be a repository root: .github is no manifest
        entry_path = Path(entry.path)
        if entry.is_symlink() and not _stays_inside(entry_path, root, listing):
            continue
        if _is_dir(entry):
            _walk(root, entry_path, seen, listing)
        elif entry.name.endswith(SUFFIXES):
            _add_file(listing, entry_path)


def _stays_inside(link: Path, root: Path, listing: Listing) -> bool:
    """Whether the link `link` leads to a place inside `root`; if not, it is a problem."""
    try:
        os.stat(link)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            return True  # a broken link is named as such where it is read
        # Its name may be a folder's: not followed, and not skipped in silence either.
        listing.problems.append((link, "a loop of symbolic links"))
        return False
    target = Path(os.path.realpath(link))
    if target == root or root in target.parents:
        return True
    listing.problems.append(
        (
            link,
            f"a symbolic link out of the manifest folder (to {target}) is not followed;"
            " include a shared folder with the Portal's spec.include",
        )
    )
    return False


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:
        return False


def _add_file(listing: Listing, path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        listing.problems.append((path, "a broken symbolic link"))
        return
    except OSError as exc:
        listing.problems.append((path, f"cannot be read ({exc.strerror or exc})"))
        return
    if not stat.S_ISREG(mode):
        listing.problems.append((path, "not a regular file (a FIFO, socket or device)"))
        return
    listing.files.append(path)
