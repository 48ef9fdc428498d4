"""Where the agent's manifests come from: a Git repository (a URL or a local path, read
with the `git` command at `--ref`) or a plain folder re-read each interval.

A Git revision is fetched into a bare cache and its tree written to a folder of its own
(`rev-<sha>`), so a portal can keep planning and applying its last good revision while a
newer one fails to load. A plain folder's revision is a digest of its files, so a change
is seen as a new revision too.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import re
import shutil
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from reconciler.errors import UserError

GIT_SECONDS = 120.0  # a fetch that hangs longer is a failed fetch, retried next interval


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One revision of the source, written out: `root` is `--path` inside it."""

    revision: str
    root: Path


class FolderSource:
    """A folder with no Git: its revision is a digest of its files."""

    def __init__(self, folder: Path, subdir: str) -> None:
        self.folder = folder
        self.subdir = subdir

    async def read(self) -> Snapshot:
        root = self.folder / self.subdir if self.subdir else self.folder
        if not root.is_dir():
            raise UserError(f"{root}: no such folder")
        digest = await asyncio.to_thread(_digest, root)
        return Snapshot(f"folder:{digest}", root)

    def keep_only(self, revisions: Iterable[str]) -> None:
        """Nothing to clean: the folder is read where it is."""


def _digest(root: Path) -> str:
    hashed = hashlib.sha256()
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        hashed.update(file.relative_to(root).as_posix().encode() + b"\0")
        hashed.update(file.read_bytes() + b"\0")
    return hashed.hexdigest()[:12]


class GitSource:
    """A Git repository fetched into `cache`; each revision's tree in its own folder."""

    def __init__(self, url: str, ref: str, subdir: str, cache: Path) -> None:
        self.url = url
        self.ref = ref
        self.subdir = subdir
        self.cache = cache
        self.repository = cache / "repository.git"

    async def read(self) -> Snapshot:
        if not self.repository.exists():
            await _git("init", "--bare", "--quiet", str(self.repository))
        await _git(
            "--git-dir", str(self.repository), "fetch", "--quiet", "--depth", "1", "--",
            self.url, self.ref,
        )  # fmt: skip
        revision = (
            await _git("--git-dir", str(self.repository), "rev-parse", "FETCH_HEAD^{commit}")
        ).strip()
        tree = self.cache / f"rev-{revision}"
        if not tree.exists():
            archive = await _git_bytes("--git-dir", str(self.repository), "archive", revision)
            await asyncio.to_thread(_unpack, archive, tree)
        root = tree / self.subdir if self.subdir else tree
        if not root.is_dir():
            raise UserError(f"{self.subdir}: no such folder at revision {revision[:12]}")
        return Snapshot(revision, root)

    def keep_only(self, revisions: Iterable[str]) -> None:
        """Remove the trees of revisions no portal uses any more."""
        kept = {f"rev-{revision}" for revision in revisions}
        for tree in self.cache.glob("rev-*"):
            if tree.name not in kept:
                shutil.rmtree(tree, ignore_errors=True)


def _unpack(archive: bytes, tree: Path) -> None:
    # Written beside, then renamed: a half-written tree never passes for a revision.
    partial = tree.with_name(tree.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(partial, filter="data")  # no links out, no absolute paths
    # The tree's root is the repository's: a Portal's spec.include may reach any folder
    # below it and none above, as in the checkout `orgctl plan` reads (includes.py looks
    # for `.git` to find that root).
    (partial / ".git").mkdir(exist_ok=True)
    partial.rename(tree)


async def _git(*args: str) -> str:
    return (await _git_bytes(*args)).decode(errors="replace")


async def _git_bytes(*args: str) -> bytes:
    try:
        process = await asyncio.create_subprocess_exec(
            "git",
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=_git_environment(),
        )
    except FileNotFoundError:
        raise UserError("orgctl agent reads Git sources with `git`: not found") from None
    try:
        out, err = await asyncio.wait_for(process.communicate(), GIT_SECONDS)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise UserError(f"git {_verb(args)}: no answer within {GIT_SECONDS:g} s") from None
    if process.returncode != 0:
        said = err.decode(errors="replace").strip().splitlines()
        last = said[-1] if said else f"exit {process.returncode}"
        raise UserError(f"git {_verb(args)} failed: {_without_userinfo(last)}")
    return out


def _verb(args: tuple[str, ...]) -> str:
    return next((a for a in args if a in ("init", "fetch", "rev-parse", "archive")), "")


def _without_userinfo(line: str) -> str:
    """A URL in git's message may carry a token as user info: never repeat it."""
    return re.sub(r"://[^/@\s]*@", "://", line)


def _git_environment() -> dict[str, str]:
    # Never a prompt for a password on a terminal nobody watches: fail, retry next interval.
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0"}


def source_for(location: str, ref: str, subdir: str, cache: Path) -> FolderSource | GitSource:
    """A URL or a Git repository's folder is fetched with git; another folder is read."""
    path = Path(location)
    if "://" not in location and not location.startswith("git@"):
        if not path.exists():
            raise UserError(f"--source {location}: no such folder")
        if not (path / ".git").exists() and not (path / "HEAD").is_file():
            return FolderSource(path, subdir)
        location = str(path.resolve())
    return GitSource(location, ref, subdir, cache)
