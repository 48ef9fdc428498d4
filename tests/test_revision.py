"""reconciler.revision: a folder as it was at a Git revision, in a temporary copy of the
repository's tree there."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from reconciler.errors import UserError
from reconciler.revision import checked_out


def _git(repository: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repository), *args],
        check=True,
        capture_output=True,
    )


def _repository(root: Path) -> Path:
    repository = root / "repo"
    (repository / "portals" / "hq").mkdir(parents=True)
    (repository / "portals" / "hq" / "roles.yaml").write_text("then\n")
    _git(root, "init", "-q", "-b", "main", str(repository))
    return repository


def test_the_folder_is_as_it_was_at_the_revision_and_the_copy_goes_afterwards(
    tmp_path: Path,
) -> None:
    repository = _repository(tmp_path)
    os.symlink("/etc/hostname", repository / "out-of-tree")  # refused by the copy, not fatal
    _git(repository, "add", ".")
    _git(repository, "commit", "-qm", "base")
    (repository / "portals" / "hq" / "roles.yaml").write_text("now\n")
    with checked_out(repository / "portals" / "hq", "main") as then:
        assert (then / "roles.yaml").read_text() == "then\n"
        top = then.parents[1]
        assert (top / ".git").is_file()  # the copy's top bounds includes
        assert not (top / "out-of-tree").exists()
    assert not then.exists()


def test_a_folder_absent_at_the_revision_is_one_error(tmp_path: Path) -> None:
    repository = _repository(tmp_path)
    _git(repository, "add", ".")
    _git(repository, "commit", "-qm", "base")
    (repository / "portals" / "new").mkdir()
    with (
        pytest.raises(UserError, match=r"did not exist at main"),
        checked_out(repository / "portals" / "new", "main"),
    ):
        pass
