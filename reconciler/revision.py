"""A manifest folder as it was at a Git revision: `what-if --against REF` compares it with
the working tree's.

The repository's whole tree at the revision is written to a temporary folder with
`git archive`, not only PATH: a portal folder may include a shared folder or overlay a
fleet base anywhere in the repository, and those must be read as they were too. No
worktree is added and nothing of the repository changes.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

from reconciler.errors import UserError

_GIT_TIMEOUT_SECONDS = 120


def _git(repository: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", "-C", str(repository), *args],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=_GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except FileNotFoundError:
        raise UserError("--against needs the git command, and none is on PATH") from None


def repository_of(path: Path) -> Path:
    """The top of the Git working tree holding `path`."""
    if not path.exists():
        raise UserError(f"{path}: no such file or folder")
    folder = path if path.is_dir() else path.parent
    found = _git(folder, "rev-parse", "--show-toplevel")
    if found.returncode != 0:
        raise UserError(f"{path} is not inside a Git repository: --against needs one")
    return Path(found.stdout.decode().strip())


def _commit(repository: Path, ref: str) -> str:
    if ref.startswith("-"):  # never an option of git's
        raise UserError(f"--against {ref!r}: not a revision")
    found = _git(
        repository, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"
    )
    if found.returncode != 0:
        raise UserError(f"--against {ref!r}: no such revision in {repository}")
    return found.stdout.decode().strip()


@contextlib.contextmanager
def checked_out(path: Path, ref: str) -> Iterator[Path]:
    """`path` as it was at `ref`, in a temporary copy of the repository's tree there,
    removed on leaving."""
    repository = repository_of(path)
    commit = _commit(repository, ref)
    inside = Path(os.path.realpath(path)).relative_to(os.path.realpath(repository))
    with tempfile.TemporaryDirectory(prefix="orgctl-against-") as scratch:
        archive = Path(scratch) / "tree.tar"
        made = _git(repository, "archive", "--format=tar", "-o", str(archive), commit)
        if made.returncode != 0:
            said = made.stderr.decode(errors="replace").strip()
            raise UserError(f"--against {ref!r}: git archive failed: {said}")
        tree = Path(scratch) / "tree"
        with tarfile.open(archive) as tar:
            tar.extractall(tree, filter=_inside)
        # The copy's top is a repository's (a worktree's `.git` is a file too): includes
        # are bounded by it, as by the real one, whatever the working directory.
        (tree / ".git").touch()
        then = tree / inside
        if not then.exists():
            raise UserError(f"{path} did not exist at {ref} ({commit[:12]})")
        yield then


def _inside(member: tarfile.TarInfo, destination: str) -> tarfile.TarInfo | None:
    """The `data` filter's verdict, a refused entry (a link out of the tree, an absolute
    path) left out rather than failing the whole copy: manifests never need one, and the
    folder reader refuses a link that leads out of a portal folder anyway."""
    try:
        return tarfile.data_filter(member, destination)
    except tarfile.FilterError:
        return None
